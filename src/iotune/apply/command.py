"""Run a user's command with MPI-IO hints and environment applied, and time it (paper 001, Fig. 2).

The tuning module of paper 001 applies the chosen hints before the
application's MPI-IO calls, transparently; here they reach the command through
every channel an MPI library or IOR reads (:func:`iotune.apply.settings.apply_settings`).
The monitoring module times the run by what it can see of its I/O, in this order:

1. the application's own figure of merit (``--metric REGEX``, :mod:`iotune.apply.metric`);
2. the I/O time of its slowest process and the bytes it moved, from the Darshan
   log the run left: Darshan is loaded with ``--darshan LIB`` (put in
   ``LD_PRELOAD``) or already in the environment's ``LD_PRELOAD``; unless the
   user set ``DARSHAN_LOGFILE`` or ``DARSHAN_LOGPATH``, each run's log goes to a
   directory of its own (``DARSHAN_LOGPATH``), read with pydarshan and removed;
3. the I/O time of its slowest process in MPI-IO calls, with bytes and files,
   measured inside the application by iotune's own PMPI library
   (:mod:`iotune.apply.pmpi`, preloaded; ``pmpi=`` the library), which then
   also applies the hints at ``MPI_File_open``, none going through the
   environment; HDF5's I/O over MPI-IO is counted too;
4. else the command's wall time, which includes start-up and computation, and
   is labelled ``wall time`` wherever it is shown (:mod:`iotune.apply.launch`
   measures the start-up it includes).

A run is measured one way only; which one is recorded with it
(``extra["phase_seconds_source"]``, :func:`measure_of`), and runs measured
differently are never compared (:class:`iotune.apply.measured.MeasuredAlike`).

:class:`iotune.runners.command.CommandRunner` runs :func:`execute` as a runner, so
``iotune tune -- mpiexec ... ./app`` measures the application with the same
campaign machinery as the benchmark.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from iotune import __version__
from iotune.apply.applied import Applied
from iotune.apply.metric import Metric
from iotune.apply.pmpi import PmpiResult
from iotune.apply.pmpi.preload import at_open, preloaded
from iotune.apply.settings import apply_settings
from iotune.errors import IotuneError
from iotune.records import Measurement, PhaseResult
from iotune.workload import WorkloadError

RUNNER = "command"


WALL = "wall time"
DARSHAN = "darshan io time"
PMPI = "pmpi io time"
METRIC = "metric"
PMPI_WORDS = "I/O time measured inside the application by iotune's PMPI library"
NO_IO = ("the application made no MPI-IO call, so iotune's PMPI library measured no I/O time (a POSIX or "
         "non-MPI application: give --metric REGEX, --darshan LIB or --wall-time)")
OUTPUT_KEPT = 1 << 20  # bytes of the command's output kept for --metric (its end)


@dataclass
class Execution:
    """One run of a command: what was applied, its exit status, wall seconds, bytes moved (from Darshan), and
    the figure of merit read from its output (``metric_value``, as printed) or why it could not be."""

    applied: Applied
    returncode: int
    wall_seconds: float
    bytes: int = 0
    io_seconds: float | None = None
    darshan_log: str | None = None
    warnings: list[str] = field(default_factory=list)
    metric: Metric | None = None
    metric_value: float | None = None
    metric_error: str | None = None
    pmpi_used: bool = False
    pmpi: PmpiResult | None = None
    pmpi_error: str | None = None

    @property
    def source(self) -> str:
        """What the run's stored seconds are: ``metric``, ``darshan io time``, ``pmpi io time`` or ``wall time``."""
        if self.metric is not None:
            return METRIC
        if self.pmpi_used:
            return PMPI
        return DARSHAN if self.io_seconds else WALL

    def measurement(self, command: list[str], extra: dict | None = None) -> Measurement:
        """The run as a trial's outcome: one ``run`` phase of the metric (``1 / value`` when maximized), else the
        I/O time Darshan measured, else the wall time; FAILED on a non-zero exit or a metric not found."""
        source, metric = self.source, self.metric
        pmpi = self.pmpi
        if metric is not None:  # source == METRIC
            seconds = metric.seconds(self.metric_value) if self.metric_value is not None else 0.0
        elif source == PMPI:
            seconds = pmpi.io_seconds if pmpi is not None else 0.0
        else:
            seconds = self.io_seconds or self.wall_seconds  # source: DARSHAN when it measured any, else WALL
        moved = pmpi.bytes if source == PMPI and pmpi is not None else self.bytes
        phase = PhaseResult("run", moved, seconds, 0.0, seconds, 0.0, 0)
        error = f"exit status {self.returncode}" if self.returncode != 0 else None
        if error is None and source == METRIC and self.metric_value is None:
            error = self.metric_error or "no metric in the output"
        if error is None and source == PMPI:
            error = self.pmpi_error or (NO_IO if pmpi is None or pmpi.opens == 0 or seconds <= 0 else None)
        details = {"metric": {"pattern": metric.pattern, "direction": metric.direction,
                              "value": self.metric_value}} if metric is not None else {}
        if source == PMPI and pmpi is not None:
            details["pmpi"] = pmpi.to_dict()
        bytes_source = "pmpi" if source == PMPI and pmpi is not None else "darshan" if self.bytes else "unknown"
        return Measurement(
            status="COMPLETE" if error is None else "FAILED", phases=[phase] if error is None else [],
            error=error, hints_requested=self.applied.hints,
            hints_in_effect=pmpi.in_effect if source == PMPI and pmpi is not None else {},
            runner=RUNNER, command=shlex.join(command), wall_seconds=self.wall_seconds,
            extra={"iotune_version": __version__, "kept": self.applied.kept, "overridden": self.applied.overridden,
                   "darshan_log": self.darshan_log, "phase_bytes_source": bytes_source,
                   "phase_seconds_source": source, **details, "python": sys.executable, **(extra or {})})


def pmpi_for(command: list[str], environ: Mapping[str, str], wanted: bool,
             on_build=None) -> tuple[Path | None, str | None]:
    """iotune's PMPI library for the MPI ``command`` runs on when ``wanted`` and the command starts with an MPI
    launcher (``mpiexec``, ``srun``, ...: :data:`iotune.apply.launch.LAUNCHERS`; anything else is timed by its wall
    time), built at first use (``on_build(mpicc)`` called then), else None; and, when wanted but it cannot be built,
    why (one line)."""
    from iotune.apply.launch import LAUNCHERS

    if not wanted or not command or Path(command[0]).name not in LAUNCHERS:
        return None, None
    from iotune.apply.pmpi import PmpiUnavailable, library

    try:
        return library(command, environ, on_build), None
    except PmpiUnavailable as exc:
        return None, str(exc)


def darshan_log_of(environ: Mapping[str, str], started: float) -> Path | None:
    """The Darshan log a run wrote: ``DARSHAN_LOGFILE``, else the newest ``*.darshan`` in ``DARSHAN_LOGPATH``."""
    if environ.get("DARSHAN_LOGFILE"):
        path = Path(environ["DARSHAN_LOGFILE"])
        return path if path.is_file() and path.stat().st_mtime >= started - 1 else None
    if environ.get("DARSHAN_LOGPATH"):
        logs = [p for p in Path(environ["DARSHAN_LOGPATH"]).rglob("*.darshan") if p.stat().st_mtime >= started - 1]
        return max(logs, key=lambda p: p.stat().st_mtime) if logs else None
    return None


def darshan_loaded(environ: Mapping[str, str]) -> bool:
    """Whether the environment preloads a Darshan runtime library (``LD_PRELOAD`` names libdarshan)."""
    return any("darshan" in Path(word).name for word in re.split(r"[\s:]+", environ.get("LD_PRELOAD", "")) if word)


def with_darshan(environ: Mapping[str, str], library: str | None) -> dict[str, str]:
    """``environ`` with the Darshan runtime ``library`` preloaded (first in ``LD_PRELOAD``); IotuneError when the
    file is not there."""
    environ = dict(environ)
    if library is None:
        return environ
    if not Path(library).is_file():
        raise IotuneError(f"--darshan {library}: no such file (give the path of libdarshan.so)")
    preload = environ.get("LD_PRELOAD", "")
    environ["LD_PRELOAD"] = f"{Path(library).resolve()}:{preload}" if preload else str(Path(library).resolve())
    return environ


def _tee(stream, fd: int, kept: list[bytes]) -> None:
    """Copy ``stream`` to file descriptor ``fd`` as it comes, keeping its last :data:`OUTPUT_KEPT` bytes."""
    size = 0
    for chunk in iter(lambda: stream.read1(65536), b""):
        os.write(fd, chunk)
        kept.append(chunk)
        size += len(chunk)
        while size > OUTPUT_KEPT and len(kept) > 1:
            size -= len(kept.pop(0))


def _run(command: list[str], env: dict, timeout: float | None, out_fd: int | None, capture: bool) -> tuple[int, str]:
    """Run ``command`` (stdout to ``out_fd``, or inherited when None); its exit status and, with ``capture``, the
    end of its stdout and stderr (still passed through as they come)."""
    if not capture:
        try:
            return subprocess.run(command, env=env, timeout=timeout, stdout=out_fd).returncode, ""
        except subprocess.TimeoutExpired:
            return -9, ""
    outputs: list[list[bytes]] = [[], []]
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        threads = [threading.Thread(target=_tee, args=(process.stdout, 1 if out_fd is None else out_fd, outputs[0]),
                                    daemon=True),
                   threading.Thread(target=_tee, args=(process.stderr, 2, outputs[1]), daemon=True)]
        for thread in threads:
            thread.start()
        try:
            returncode = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            returncode = -9
        for thread in threads:
            thread.join(timeout=10)
    text = b"".join(outputs[0]).decode("utf-8", "replace") + "\n" + b"".join(outputs[1]).decode("utf-8", "replace")
    return returncode, text


def execute(command: list[str], hints: Mapping[str, str], variables: Mapping[str, str], *,
            environ: Mapping[str, str] | None = None, override: bool = False,
            timeout: float | None = None, allow_env: Iterable[str] = (), where: str = "the configuration",
            stdout_to_stderr: bool = False, metric: Metric | None = None,
            log_dir: Path | None = None, pmpi: Path | None = None) -> Execution:
    """Apply ``hints`` and ``variables``, run ``command`` (stdin, stdout, stderr passed through; the command's
    stdout to our stderr with ``stdout_to_stderr``, so that iotune's own stdout stays its report), time it, and
    read its ``metric`` from its output or its I/O time from the Darshan log it left (in a directory of its own
    under ``log_dir``, the scratch directory that every node of the run sees, else the system's temporary one;
    removed after reading); with ``pmpi`` (iotune's PMPI library, :func:`iotune.apply.pmpi.library`), its I/O time
    measured by that library, preloaded, which applies the hints at ``MPI_File_open`` (none in the environment).

    OSError when the command cannot be started; a timeout counts as a failed run (exit status -9).
    """
    from iotune.profile import from_darshan

    environ = dict(os.environ if environ is None else environ)
    with tempfile.TemporaryDirectory(prefix="iotune-run-") as directory:
        applied = apply_settings(hints, variables, directory, environ=environ, override=override,
                                 allow_env=allow_env, where=where)
        pmpi_out = None
        if pmpi is not None:
            applied = at_open(applied, Path(directory))
        env = {**environ, **applied.env}
        if pmpi is not None:
            env, pmpi_out = preloaded(env, pmpi, Path(log_dir or directory))
        loaded = darshan_loaded(env)
        own_logs = None
        if loaded and not env.get("DARSHAN_LOGFILE") and not env.get("DARSHAN_LOGPATH"):
            own_logs = tempfile.mkdtemp(prefix="iotune-darshan-", dir=log_dir or directory)
            env["DARSHAN_LOGPATH"] = own_logs
        started, begin = time.time(), time.perf_counter()
        try:
            returncode, output = _run(command, env, timeout, 2 if stdout_to_stderr else None, metric is not None)
        except OSError:
            if pmpi_out is not None:
                shutil.rmtree(pmpi_out.parent, ignore_errors=True)
            raise
        wall = time.perf_counter() - begin
        execution = Execution(applied, returncode, wall, metric=metric, pmpi_used=pmpi is not None)
        if pmpi_out is not None:
            if returncode == 0:
                try:
                    execution.pmpi = PmpiResult.read(pmpi_out)
                except IotuneError as exc:
                    execution.pmpi_error = str(exc)
            shutil.rmtree(pmpi_out.parent, ignore_errors=True)
        if metric is not None and returncode == 0:
            try:
                execution.metric_value = metric.find(output)
            except IotuneError as exc:
                execution.metric_error = str(exc)
        log = darshan_log_of(env, started)
        if log is not None:
            execution.darshan_log = str(log)
            try:
                profile = from_darshan(log)
                execution.bytes = profile.bytes_read + profile.bytes_written
                execution.io_seconds = profile.io_seconds
            except WorkloadError as exc:
                execution.warnings.append(f"Darshan log not used: {exc}")
            if own_logs is not None:
                execution.darshan_log = None  # removed below
        elif loaded and returncode == 0:
            execution.warnings.append("Darshan is preloaded but the run left no log (a program that does not call "
                                      "MPI_Init needs DARSHAN_ENABLE_NONMPI=1): wall time measured instead")
        if own_logs is not None:
            shutil.rmtree(own_logs, ignore_errors=True)
    return execution


def measure_key(source: str, metric: Metric | None = None) -> str:
    """One name for what a run's seconds are, so that only runs measured alike are compared: ``wall time``,
    ``darshan io time`` or ``metric <direction> <pattern>``."""
    return f"{METRIC} {metric.direction} {metric.pattern}" if source == METRIC and metric is not None else source


def measure_of(extra: dict | None) -> str:
    """The :func:`measure_key` of a stored run (its ``extra``; older runs without one were timed by wall time)."""
    extra = extra or {}
    source = extra.get("phase_seconds_source") or WALL
    details = extra.get("metric") or {}
    if source == METRIC:
        return f"{METRIC} {details.get('direction')} {details.get('pattern')}"
    return source


def objective_words(metric: Metric | None, darshan: bool, pmpi: bool = False) -> str:
    """What a run's stored seconds are, in the words every command shows them with."""
    if metric is not None:
        return (f"the application's own figure, {metric.direction}: the last match of --metric {metric.pattern!r}"
                + (" (stored as 1/value, lower is better)" if metric.maximize else " (in seconds)"))
    if darshan:
        return "I/O time from each run's Darshan log (wall time when a run leaves none)"
    if pmpi:
        return (f"{PMPI_WORDS}: the slowest rank's seconds inside MPI-IO calls (HDF5's I/O over MPI-IO included), "
                "with bytes and files; start-up and computation left out; the hints applied at MPI_File_open")
    return "wall time of the whole command (start-up, computation and I/O)"
