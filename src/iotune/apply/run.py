"""Run a real command under a chosen configuration and record it as a trial (paper 001, Fig. 2).

The tuning module applies the configuration, the command runs with stdin,
stdout and stderr passed through, and the monitoring module records the run
in the companion study ``<study>-runs`` (same space; kept apart so that whole
application runs never mix with the benchmark's I/O times in statistics and
models): runner ``command``, one ``run`` phase whose seconds are the
application's own metric (``--metric``), else the I/O time of the Darshan log
the run left, else the I/O time iotune's PMPI library measured inside it (the
library applies the hints at ``MPI_File_open``), else the wall time of the
whole command, with what they are in ``extra["phase_seconds_source"]``
(:mod:`iotune.apply.command`).  The exit
status is returned unchanged.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from iotune.apply.applied import Applied
from iotune.apply.choose import Choice, choose_configuration
from iotune.apply.command import (
    DARSHAN,
    METRIC,
    PMPI,
    RUNNER,
    WALL,
    darshan_loaded,
    execute,
    measure_key,
    pmpi_for,
    with_darshan,
)
from iotune.errors import IotuneError
from iotune.records import Measurement
from iotune.spec.environment import check_environment, user_allowed
from iotune.spec.mapping import env_of, hint_key, hints_of, layout_of
from iotune.stored import StoredStudy


@dataclass
class RunResult:
    """One ``iotune run``: the choice, what was applied, the exit status, wall time (s), bytes moved, trial id."""

    choice: Choice
    applied: Applied
    returncode: int
    wall_seconds: float
    bytes: int
    trial_id: int
    darshan_log: str | None = None
    warnings: list[str] = field(default_factory=list)
    source: str = "wall time"
    seconds: float | None = None
    metric_value: float | None = None


def launched_processes(command: list[str]) -> int | None:
    """The process count of ``mpiexec -n N ...`` (also ``-np``, ``--np``, ``srun -n``, ``--ntasks=N``), or None."""
    for index, token in enumerate(command):
        name, sep, value = token.partition("=")
        if sep and name in ("--np", "--ntasks", "-n"):
            return int(value) if value.isdigit() else None
        if token in ("-n", "-np", "--np", "--ntasks") and index + 1 < len(command):
            return int(command[index + 1]) if command[index + 1].isdigit() else None
    return None


def runs_study(study: StoredStudy) -> StoredStudy:
    """The study that holds the application runs made under ``study``'s configurations (created on first use)."""
    record, store = study.record, study.store
    name = f"{record.name}-runs"
    runs = store.get_study(name)
    if runs is None:
        runs = store.create_study(name, record.space_yaml, record.space_hash,
                                  {"source": "iotune run", "tuning_study": record.name},
                                  description=f"application runs tuned from study {record.name}",
                                  spec_yaml=record.spec_yaml)
    elif runs.space_hash != record.space_hash:
        raise IotuneError(f"study {name!r} holds runs of another space than study {record.name!r}")
    return StoredStudy(store, runs)


def _next_repeat(study: StoredStudy, config_key: str) -> int:
    repeats = [t.repeat for t in study.trials() if t.config_key == config_key]
    return max(repeats) + 1 if repeats else 0


def run_command(study: StoredStudy, command: list[str], workload: dict | None = None, *, explore: float = 0.0,
                seed: int | None = None, override: bool = False, environ: dict | None = None,
                benchmark=None, allow_env: Iterable[str] = (), metric=None, darshan: str | None = None,
                output_dir: Path | None = None, wall_time: bool = False, on_build=None) -> RunResult:
    """Choose, apply, run ``command`` and record it in ``study``; the command's exit status is in the result.

    ``workload`` holds the application's workload values (:mod:`iotune.workload`'s names); ``benchmark``
    (the workload's nearest IOR run, when known) is recorded with the run.  The study's ``env:`` parameters
    must be known safe or named in ``allow_env`` / ``IOTUNE_ALLOW_ENV`` (:mod:`iotune.spec.environment`);
    otherwise nothing runs and nothing is recorded.  ``metric`` (:class:`iotune.apply.metric.Metric`) and
    ``darshan`` (a Darshan runtime library to preload) say how the run is measured; without either, iotune's PMPI
    library measures it (built at first use, ``on_build(mpicc)`` called then) unless ``wall_time``.  A
    configuration with a file layout (stripe_count, ...) sets it on ``output_dir``, inherited by the files the
    application creates there (:mod:`iotune.fslayout`); the layout requested and in effect are recorded with the run.
    """
    if not command:
        raise IotuneError("no command to run: give it after --, e.g. iotune run -- mpiexec -n 4 ./app")
    space, store = study.space, study.store
    environ = with_darshan(os.environ if environ is None else environ, darshan)
    where = f"study {study.name!r}"
    allowed = user_allowed(environ, allow_env)
    check_environment({p.env: "" for p in space.parameters if p.env and not hint_key(p)}, where, allowed)
    processes = launched_processes(command)
    darshan_in = darshan_loaded(environ)
    pmpi, unavailable = pmpi_for(command, environ, metric is None and not darshan_in and not wall_time, on_build)
    source = METRIC if metric is not None else DARSHAN if darshan_in else PMPI if pmpi is not None else WALL
    measure = measure_key(source, metric)
    choice = choose_configuration(study, workload, processes, explore, seed, shlex.join(command), measure)
    configuration = choice.configuration
    variables = check_environment(env_of(space, configuration), where, allowed)
    layout, layout_extra, layout_warnings = layout_of(space, configuration), {}, []
    if layout and output_dir is None:
        layout_warnings.append(f"the layout {layout} was not applied: give --output-dir, the directory where the "
                               "application creates its files")
    elif layout and output_dir is not None:
        from iotune.fslayout import apply_to_directory

        in_effect = apply_to_directory(Path(output_dir), layout)  # LayoutError: one line, before anything runs
        layout_extra = {"layout_requested": layout, "layout_in_effect": in_effect, "layout_dir": str(output_dir)}
    from iotune.bench.platform import platform_info

    platform_id = store.register_platform(platform_info(Path.cwd()))
    runs = runs_study(study)
    trial_id = store.start_trial(runs.id, configuration.to_dict(), configuration.key, configuration.workload_key,
                                 _next_repeat(runs, configuration.key), platform_id,
                                 benchmark)
    try:
        execution = execute(command, hints_of(space, configuration), variables, environ=environ,
                            override=override, allow_env=allow_env, where=where, metric=metric, pmpi=pmpi)
    except OSError as exc:
        store.finish_trial(trial_id, Measurement.failed(f"cannot run {command[0]}: {exc.strerror}",
                                                        runner=RUNNER, command=shlex.join(command)))
        raise IotuneError(f"cannot run {command[0]!r}: {exc.strerror}") from None
    measurement = execution.measurement(command, {"choice": choice.how, "reason": choice.reason, **layout_extra})
    store.finish_trial(trial_id, measurement)
    measure_error = [measurement.error] if execution.returncode == 0 and measurement.error else []
    return RunResult(choice, execution.applied, execution.returncode, execution.wall_seconds,
                     measurement.phases[0].bytes if measurement.phases else execution.bytes, trial_id,
                     execution.darshan_log, [*([unavailable] if unavailable else []), *layout_warnings,
                                             *execution.warnings, *measure_error],
                     execution.source, measurement.io_seconds if measurement.phases else None, execution.metric_value)
