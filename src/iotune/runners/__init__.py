"""Runners: what measures one trial (``run(benchmark_spec, scratch) -> Measurement``; a failure is a FAILED
measurement, never an exception).

One module per runner, each declaring its ``KIND`` (:class:`~iotune.runners.base.RunnerKind`);
the registry (:mod:`iotune.runners.registry`) finds them and gives every command and the
Python API their names, help and factory: ``builtin``, ``ior`` and ``replay:TABLE.csv``
are picked by name; :class:`CommandRunner` (``iotune tune -- CMD``) and
:class:`FunctionRunner` (``study.optimize(func)``) are made from what the user gives.

Names load with their module when first used: nothing here imports MPI or a testbed.
"""

from iotune.lazy import lazy_exports

_EXPORTS = {"RUNNERS": ".registry", "RUNNER_HELP": ".registry", "make_runner": ".registry",
            "runner_and_storage": ".registry", "storage_provider": ".registry", "FunctionRunner": ".function",
            "CommandRunner": ".command", "ReplayRunner": ".replay", "RunnerKind": ".base", "RunnerOptions": ".base"}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
