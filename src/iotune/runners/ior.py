"""The IOR runner: the real ``ior`` binary on PATH under mpiexec (:mod:`iotune.bench.ior`)."""

from __future__ import annotations

from iotune.runners.base import RunnerKind, RunnerOptions


def make(options: RunnerOptions):
    from iotune.bench.ior import IorRunner

    return IorRunner(mpiexec=options.mpiexec, timeout=options.timeout)


KIND = RunnerKind("ior", "the ior binary on PATH", make=make)
