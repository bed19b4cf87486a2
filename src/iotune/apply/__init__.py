"""Apply and run: put a configuration into effect for a real command and record the run (paper 001, Fig. 2)."""

from iotune.apply.applied import Applied
from iotune.apply.settings import apply_configuration
from iotune.apply.user_settings import ApplyError, user_hints

__all__ = ["Applied", "ApplyError", "apply_configuration", "user_hints"]
