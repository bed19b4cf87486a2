"""Run a user's command with MPI-IO hints and environment applied, and time it (paper 001, Fig. 2).

The tuning module of paper 001 applies the chosen hints before the
application's MPI-IO calls, transparently; here they reach the command through
every channel an MPI library or IOR reads (:func:`iotune.apply.settings.apply_settings`).
The monitoring module times the run: when the run leaves a Darshan log
(``DARSHAN_LOGFILE``, or the newest log written during the run in
``DARSHAN_LOGPATH``), the I/O time of its slowest process and the bytes it
moved, else the command's wall time.

:class:`CommandRunner` is a runner like the benchmark's (``run(spec, scratch)
-> Measurement``; a failure is a FAILED measurement, never an exception), so
``iotune tune -- mpiexec ... ./app`` measures the application with the same
campaign machinery as the benchmark: the trial's hints and environment are
applied, its benchmark fields are ignored.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from iotune import __version__
from iotune.apply.applied import Applied
from iotune.apply.settings import apply_settings
from iotune.records import Measurement, PhaseResult
from iotune.workload import WorkloadError

RUNNER = "command"


@dataclass
class Execution:
    """One run of a command: what was applied, its exit status, wall seconds, bytes moved (from Darshan)."""

    applied: Applied
    returncode: int
    wall_seconds: float
    bytes: int = 0
    io_seconds: float | None = None
    darshan_log: str | None = None
    warnings: list[str] = field(default_factory=list)

    def measurement(self, command: list[str], extra: dict | None = None) -> Measurement:
        """The run as a trial's outcome: one ``run`` phase of the I/O time Darshan measured (else the wall time);
        FAILED on a non-zero exit."""
        seconds = self.io_seconds if self.io_seconds else self.wall_seconds
        phase = PhaseResult("run", self.bytes, seconds, 0.0, seconds, 0.0, 0)
        ok = self.returncode == 0
        return Measurement(
            status="COMPLETE" if ok else "FAILED", phases=[phase],
            error=None if ok else f"exit status {self.returncode}", hints_requested=self.applied.hints,
            runner=RUNNER, command=shlex.join(command), wall_seconds=self.wall_seconds,
            extra={"iotune_version": __version__, "kept": self.applied.kept, "overridden": self.applied.overridden,
                   "darshan_log": self.darshan_log, "phase_bytes_source": "darshan" if self.bytes else "unknown",
                   "phase_seconds_source": "darshan io time" if self.io_seconds else "wall time",
                   "python": sys.executable, **(extra or {})})


def darshan_log_of(environ: Mapping[str, str], started: float) -> Path | None:
    """The Darshan log a run wrote: ``DARSHAN_LOGFILE``, else the newest ``*.darshan`` in ``DARSHAN_LOGPATH``."""
    if environ.get("DARSHAN_LOGFILE"):
        path = Path(environ["DARSHAN_LOGFILE"])
        return path if path.is_file() and path.stat().st_mtime >= started - 1 else None
    if environ.get("DARSHAN_LOGPATH"):
        logs = [p for p in Path(environ["DARSHAN_LOGPATH"]).rglob("*.darshan") if p.stat().st_mtime >= started - 1]
        return max(logs, key=lambda p: p.stat().st_mtime) if logs else None
    return None


def execute(command: list[str], hints: Mapping[str, str], variables: Mapping[str, str], *,
            environ: Mapping[str, str] | None = None, override: bool = False,
            timeout: float | None = None, allow_env: Iterable[str] = (), where: str = "the configuration",
            stdout_to_stderr: bool = False) -> Execution:
    """Apply ``hints`` and ``variables``, run ``command`` (stdin, stdout, stderr passed through; the command's
    stdout to our stderr with ``stdout_to_stderr``, so that iotune's own stdout stays its report), time it.

    OSError when the command cannot be started; a timeout counts as a failed run (exit status -9).
    """
    from iotune.profile import from_darshan

    environ = dict(os.environ if environ is None else environ)
    with tempfile.TemporaryDirectory(prefix="iotune-run-") as directory:
        applied = apply_settings(hints, variables, directory, environ=environ, override=override,
                                 allow_env=allow_env, where=where)
        started, begin = time.time(), time.perf_counter()
        try:
            returncode = subprocess.run(command, env={**environ, **applied.env}, timeout=timeout,
                                        stdout=2 if stdout_to_stderr else None).returncode  # fd 2
        except subprocess.TimeoutExpired:
            returncode = -9
        wall = time.perf_counter() - begin
    execution = Execution(applied, returncode, wall)
    log = darshan_log_of(environ, started)
    if log is not None:
        execution.darshan_log = str(log)
        try:
            profile = from_darshan(log)
            execution.bytes = profile.bytes_read + profile.bytes_written
            execution.io_seconds = profile.io_seconds
        except WorkloadError as exc:
            execution.warnings.append(f"Darshan log not used: {exc}")
    return execution


class CommandRunner:
    """Measures an application under each trial's hints and environment (a runner for ``iotune tune -- CMD``)."""

    name = RUNNER

    def __init__(self, command: list[str], *, environ: Mapping[str, str] | None = None, override: bool = False,
                 timeout: float | None = None, stdout_to_stderr: bool = True):
        self.command = list(command)
        self.stdout_to_stderr = stdout_to_stderr
        self.environ = dict(os.environ if environ is None else environ)
        self.override = override
        self.timeout = timeout
        self.warnings: list[str] = []

    def run(self, spec, scratch: Path) -> Measurement:
        try:
            execution = execute(self.command, spec.hints, spec.env, environ=self.environ, override=self.override,
                                timeout=self.timeout, stdout_to_stderr=self.stdout_to_stderr)
        except OSError as exc:
            return Measurement.failed(f"cannot run {self.command[0]}: {exc.strerror or exc}", runner=RUNNER,
                                      command=shlex.join(self.command))
        self.warnings += execution.warnings
        return execution.measurement(self.command)

    def close(self) -> None:
        pass
