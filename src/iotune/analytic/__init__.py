"""Analytic performance models and their stochastic simulations.

``lustre``: the queueing model of a write striped over Lustre OSTs (paper 004,
Sec. II-B) and ``lustre_sim`` its Monte Carlo simulation.  ``striped_placement``:
the time of a striped write from the busiest server's load under the file
system's placement (``placement``), fitted by ``striped_fit`` (issue 33).
"""

from iotune.analytic.errors import ModelError
from iotune.analytic.lustre import LustreQueueModel
from iotune.analytic.lustre_sim import WaitSample, mean_and_stderr, simulate_completion_times, stationary_waits

__all__ = [
    "LustreQueueModel",
    "ModelError",
    "WaitSample",
    "mean_and_stderr",
    "simulate_completion_times",
    "stationary_waits",
]

from iotune.analytic.lustre_space import LustreObjective, lustre_space  # noqa: E402

__all__ += ["LustreObjective", "lustre_space"]

from iotune.analytic.striped_fit import fit_striped  # noqa: E402
from iotune.analytic.striped_placement import StripedPlacementModel, StripedWrite  # noqa: E402

__all__ += ["StripedPlacementModel", "StripedWrite", "fit_striped"]
