"""The command runner: a user's application under each trial's hints and environment (``iotune tune -- CMD``).

It runs :func:`iotune.apply.command.execute` (hints and environment applied through every channel an MPI
library or IOR reads, or at MPI_File_open by iotune's PMPI library; timed by the application's metric, Darshan,
the PMPI library or wall time); the trial's benchmark fields are ignored.  A runner like the benchmark's
(``run(spec, scratch) -> Measurement``; a failure is a FAILED measurement, never an exception), made from the
command rather than picked by name.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from iotune.records import Measurement
from iotune.runners.base import RunnerKind

if TYPE_CHECKING:
    from iotune.apply.launch import StartUp
    from iotune.apply.metric import Metric

RUNNER = "command"

KIND = RunnerKind(RUNNER, "an application given after -- (iotune tune -- CMD), timed by --metric, Darshan, "
                  "iotune's PMPI library or its wall time")


class CommandRunner:
    """Measures an application under each trial's hints and environment (a runner for ``iotune tune -- CMD``).

    With neither a metric nor Darshan, the objective is the I/O time iotune's PMPI library measures inside the
    application (``pmpi``: the library, built at first use; ``pmpi_unavailable`` says why it could not be); with
    ``wall_time`` or without the library it is wall time: the command's start-up is measured once (``startup``,
    cached in the scratch directory) and runs shorter than a few start-ups are counted (``short_runs``).
    """

    name = RUNNER

    def __init__(self, command: list[str], *, environ: Mapping[str, str] | None = None, override: bool = False,
                 timeout: float | None = None, stdout_to_stderr: bool = True, metric: Metric | None = None,
                 darshan: str | None = None, wall_time: bool = False, on_build=None):
        from iotune.apply.command import darshan_loaded, pmpi_for, with_darshan

        self.command = list(command)
        self.stdout_to_stderr = stdout_to_stderr
        self.environ = with_darshan(os.environ if environ is None else environ, darshan)
        self.override = override
        self.timeout = timeout
        self.metric = metric
        self.darshan = darshan_loaded(self.environ)
        self.pmpi, self.pmpi_unavailable = pmpi_for(self.command, self.environ, metric is None and not self.darshan
                                                    and not wall_time, on_build)
        self.warnings: list[str] = []
        self.startup: StartUp | None = None
        self.short_runs = 0
        self.wall_runs = 0

    @property
    def wall_time(self) -> bool:
        """Whether the objective is the command's wall time (no metric, no Darshan, no PMPI library)."""
        return self.metric is None and not self.darshan and self.pmpi is None

    @property
    def measure(self) -> str:
        """What every run's stored seconds are (:func:`iotune.apply.command.measure_key`)."""
        from iotune.apply.command import DARSHAN, METRIC, PMPI, WALL, measure_key

        source = METRIC if self.metric is not None else DARSHAN if self.darshan else PMPI if self.pmpi else WALL
        return measure_key(source, self.metric)

    def measure_startup(self, cache_dir: Path | None) -> StartUp | None:
        """The command's start-up on this host (measured once, cached in ``cache_dir``)."""
        from iotune.apply.launch import start_up

        if self.startup is None:
            self.startup = start_up(self.command, cache_dir, self.environ)
        return self.startup

    def run(self, spec, scratch: Path) -> Measurement:
        from iotune.apply.command import WALL, execute
        from iotune.apply.launch import short_run_warning

        try:
            execution = execute(self.command, spec.hints, spec.env, environ=self.environ, override=self.override,
                                timeout=self.timeout, stdout_to_stderr=self.stdout_to_stderr, metric=self.metric,
                                log_dir=scratch, pmpi=self.pmpi)
        except OSError as exc:
            return Measurement.failed(f"cannot run {self.command[0]}: {exc.strerror or exc}", runner=RUNNER,
                                      command=shlex.join(self.command), extra=self._measured_as())
        self.warnings += [w for w in execution.warnings if w not in self.warnings]
        extra = {}
        if execution.source == WALL:
            startup = self.measure_startup(scratch)
            self.wall_runs += 1
            if startup is not None:
                extra["startup_seconds"] = list(startup.seconds)
                self.short_runs += short_run_warning(execution.wall_seconds, startup) is not None
        return execution.measurement(self.command, extra)

    def _measured_as(self) -> dict:
        """The ``extra`` that says how a run that could not start was to be measured (so it is counted there)."""
        from iotune.apply.command import METRIC

        if self.metric is None:
            return {"phase_seconds_source": self.measure}
        return {"phase_seconds_source": METRIC,
                "metric": {"pattern": self.metric.pattern, "direction": self.metric.direction, "value": None}}

    def close(self) -> None:
        pass
