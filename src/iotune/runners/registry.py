"""The runners picked by name (``--runner NAME``, ``study.bench(runner=NAME)``), their help, and their factory.

Adding a runner: its module, and one entry in :data:`RUNNERS` with a branch in :func:`make_runner`.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from pathlib import Path

from iotune.errors import IotuneError

RUNNERS = {
    "builtin": "iotune's MPI-IO/POSIX benchmark, run by MPICH via mpi4py",
    "ior": "the ior binary on PATH",
    "replay:TABLE.csv": "recorded trials looked up instead of measured: a stand-in for the storage, for rehearsals",
}
"""Runner name -> what it is."""

RUNNER_HELP = "; ".join(f"{name}: {what}" for name, what in RUNNERS.items()) + "."


def default_scratch() -> Path:
    """Where a benchmark writes unless told: iotune-scratch under the system temp dir."""
    return Path(tempfile.gettempdir()) / "iotune-scratch"


def make_runner(kind: str, timeout: float, mpiexec: str | None, nodes: int = 1):
    """The benchmark runner ``kind`` (builtin: iotune's MPI kernel, its ranks over ``nodes`` nodes of a Slurm
    allocation; ior: the ior binary)."""
    if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0):
        raise IotuneError(f"--timeout must be a positive number of seconds, got {timeout!r}")
    if kind == "builtin":
        from iotune.bench.runner import BuiltinRunner

        return BuiltinRunner(mpiexec=mpiexec, timeout=timeout, nodes=nodes)
    if kind == "ior":
        from iotune.bench.ior import IorRunner

        return IorRunner(mpiexec=mpiexec, timeout=timeout)
    raise IotuneError(f"--runner must be one of {', '.join(RUNNERS)}, got {kind!r}")


def runner_and_storage(spec, kind: str, timeout: float, mpiexec: str | None, scratch: Path,
                       testbed_dir: Path | None = None, replay_scale: float = 1.0, nodes: int = 1,
                       say: Callable[[str], None] | None = None):
    """The runner and the storage provider (None unless the spec varies storage) for ``spec``.

    ``replay:TABLE.csv`` replays recorded trials instead of measuring (:mod:`iotune.study.replay`).
    ``nodes``: the builtin runner's trials span that many nodes (a worker in a Slurm allocation).
    ``say(text)`` is told when the spec builds storage on testbeds.
    """
    if kind.startswith("replay:"):
        from iotune.study.replay import ReplayRunner, ReplayStorage, ReplayTable

        table = ReplayTable(spec, kind.split(":", 1)[1])
        storage = ReplayStorage(table, scratch, replay_scale, timeout) if spec.uses_testbed else None
        return ReplayRunner(table, scale=replay_scale, timeout=timeout), storage
    runner = make_runner(kind, timeout, mpiexec, nodes)
    try:
        return runner, storage_provider(spec, kind, timeout, mpiexec, testbed_dir, say)
    except BaseException:
        runner.close()
        raise


def storage_provider(spec, runner_kind: str, timeout: float, mpiexec: str | None, testbed_dir: Path | None = None,
                     say: Callable[[str], None] | None = None):
    """A TestbedProvider when ``spec`` builds storage, else None."""
    if not spec.uses_testbed:
        return None
    from iotune.testbed import TestbedProvider

    provider = TestbedProvider(testbed_dir, lambda wrapper: make_runner(runner_kind, timeout, wrapper), mpiexec)
    provider.check()
    if say is not None:
        say("the spec builds storage: each storage configuration is measured on its own testbed")
    return provider
