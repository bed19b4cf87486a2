"""Parameter checks shared by the predictors, done in ``fit`` (never ``__init__``).

Each error names the estimator, the parameter, what is allowed and what was
given, in one line.
"""

from __future__ import annotations

import numbers
from collections.abc import Collection
from typing import Any

from iotune.learn.errors import PredictorError


def check_int(owner: str, name: str, value: Any, minimum: int) -> int:
    """Return ``value`` if it is an integer >= ``minimum`` (bools refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise PredictorError(f"{owner}: {name} must be an integer >= {minimum}; got {value!r}")
    return int(value)


def check_option(owner: str, name: str, value: Any, options: Collection[Any]) -> Any:
    """Return ``value`` if it is one of ``options``."""
    if value not in options:
        allowed = ", ".join(repr(o) for o in options)
        raise PredictorError(f"{owner}: {name} must be one of {allowed}; got {value!r}")
    return value
