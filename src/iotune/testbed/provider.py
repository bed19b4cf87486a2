"""Testbeds for a campaign whose space varies storage (file system, devices, device class; paper 000 Sec. 2.1).

A :class:`TestbedProvider` is given to a campaign's worker as ``storage=``
(:mod:`iotune.study.worker`).  The worker asks it for one :class:`StorageSession`
per run of trials that share a storage configuration; the session holds a built testbed
and a runner whose MPI ranks run inside the testbed's blkio cgroup, and its
``close`` stops the runner before tearing the testbed down (a rank still
holding a file open would keep the file system busy).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from iotune.spec.storage import StorageConfig
from iotune.testbed.system import require_support
from iotune.testbed.testbed import Built, Testbed

if TYPE_CHECKING:
    from iotune.bench.runner import Runner


class StorageSession:
    """One built testbed in use by a campaign: ``built``, ``runner`` (inside its cgroup), ``scratch`` directory."""

    def __init__(self, testbed: Testbed, built: Built, runner: Runner | None):
        self.testbed = testbed
        self.built = built
        self.runner = runner

    @property
    def config(self) -> StorageConfig:
        return self.built.config

    @property
    def scratch(self) -> Path:
        """Where the benchmark writes: the testbed's mountpoint."""
        return self.built.mountpoint

    def close(self) -> list[str]:
        """Stop the runner, then tear the testbed down; returns teardown warnings (idempotent)."""
        try:
            if self.runner is not None:
                self.runner.close()
                self.runner = None
        finally:
            warnings = self.testbed.teardown()
        return warnings


class TestbedProvider:
    """Builds testbeds for a campaign, under ``root_dir`` (default: $IOTUNE_TESTBED_DIR or /var/tmp/iotune-testbed).

    ``make_runner(mpiexec)`` makes the runner of one testbed from the path of the
    script that joins its cgroup and execs mpiexec (default: a BuiltinRunner);
    ``mpiexec`` is the real mpiexec (default: found on PATH).  Fields of the
    StorageConfig that a spec does not vary come from its ``storage:`` section.
    ``builds`` counts the testbeds built so far.
    """

    __test__ = False  # not a pytest test class despite the name

    def __init__(self, root_dir: Path | None = None, make_runner: Callable[[str], Runner] | None = None,
                 mpiexec: str | None = None):
        self.root_dir = None if root_dir is None else Path(root_dir)
        self.make_runner = make_runner
        self.mpiexec = mpiexec
        self.builds = 0

    def check(self) -> None:
        """TestbedUnsupportedError with the one-line reason when this machine or user cannot build testbeds."""
        require_support()

    def open(self, config: StorageConfig) -> StorageSession:
        """Build a testbed for ``config`` and a runner inside its cgroup; the caller closes the session."""
        testbed = Testbed(self.root_dir)
        built = testbed.build(config)
        self.builds += 1
        try:
            wrapper = testbed.mpiexec_wrapper(self.mpiexec)
            runner: Runner
            if self.make_runner is None:
                from iotune.bench.runner import BuiltinRunner

                runner = BuiltinRunner(mpiexec=wrapper)
            else:
                runner = self.make_runner(wrapper)
        except BaseException:
            testbed.teardown()
            raise
        return StorageSession(testbed, built, runner)
