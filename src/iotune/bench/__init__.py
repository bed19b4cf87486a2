"""Runners: execute one trial (one repeat of one configuration) and return a Measurement.

Heavy parts (mpi4py, the MPI world, IOR) load only when a runner is used.
"""

from iotune.lazy import lazy_exports
from iotune.records import BenchmarkSpec, Measurement, PhaseResult

__all__ = [
    "BenchmarkSpec",
    "BuiltinRunner",
    "IorRunner",
    "Measurement",
    "PhaseResult",
    "Runner",
    "ior_command_line",
    "parse_ior_hints_log",
    "parse_ior_json",
    "platform_info",
]

_LAZY = {
    "BuiltinRunner": "iotune.bench.runner",
    "Runner": "iotune.bench.runner",
    "ior_command_line": "iotune.bench.runner",
    "IorRunner": "iotune.bench.ior",
    "parse_ior_json": "iotune.bench.ior",
    "parse_ior_hints_log": "iotune.bench.ior",
    "platform_info": "iotune.bench.platform",
}


__getattr__ = lazy_exports(__name__, _LAZY)
