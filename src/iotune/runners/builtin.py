"""The built-in runner: iotune's MPI-IO/POSIX benchmark with IOR's semantics (:mod:`iotune.bench.runner`)."""

from __future__ import annotations

from iotune.runners.base import RunnerKind, RunnerOptions


def make(options: RunnerOptions):
    from iotune.bench.runner import BuiltinRunner

    return BuiltinRunner(mpiexec=options.mpiexec, timeout=options.timeout, nodes=options.nodes)


KIND = RunnerKind("builtin", "iotune's MPI-IO/POSIX/HDF5 benchmark, run by MPICH via mpi4py", make=make, default=True)
