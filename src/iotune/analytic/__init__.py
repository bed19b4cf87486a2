"""Analytic performance models and their stochastic simulations.

``lustre``: the queueing model of a write striped over Lustre OSTs (paper 004,
Sec. II-B) and ``lustre_sim`` its Monte Carlo simulation.
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
