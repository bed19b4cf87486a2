"""Runners: what measures one trial (``run(benchmark_spec, scratch) -> Measurement``; a failure is a FAILED
measurement, never an exception).

The registry (:mod:`iotune.runners.registry`) names the runners a command or the
Python API can pick by name, with their help, in one place: ``builtin``, ``ior``,
``replay:TABLE.csv``.  Two more are made from what the user gives rather than a
name: :class:`~iotune.apply.command.CommandRunner` (``iotune tune -- CMD``) and
:class:`FunctionRunner` (``study.optimize(func)``).

Names load with their module when first used: nothing here imports MPI or a testbed.
"""

from importlib import import_module

_EXPORTS = {"RUNNERS": "registry", "RUNNER_HELP": "registry", "make_runner": "registry",
            "runner_and_storage": "registry", "storage_provider": "registry", "FunctionRunner": "function"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'iotune.runners' has no attribute {name!r}")
    return getattr(import_module(f"iotune.runners.{module}"), name)
