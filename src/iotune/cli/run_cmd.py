"""``iotune run``: run an application with the best known configuration applied, and record it (paper 001 Fig. 2)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from iotune.cli.options import DB
from iotune.cli.terminal import Terminal
from iotune.errors import IotuneError
from iotune.fslayout.drivers import KNOWN as KNOWN_LAYOUTS

SIZE_FIELDS = ("bytes_per_process", "request_size", "bytes_read", "bytes_written")


def run(
    command: list[str] = typer.Argument(None, help="The command to run, after --."),
    study: str = typer.Option(None, "--study", "-s", help="Study whose measurements choose the configuration "
                                                          "(iotune studies lists them)."),
    workload: str = typer.Option(None, "--workload", "-w", help="The application's workload: name=value pairs, a "
                                 "workload YAML file, a Darshan log of an earlier run or an IOR command line."),
    darshan: Path = typer.Option(None, "--from-darshan", hidden=True, help="Older form of --workload LOG."),
    explore: float = typer.Option(0.0, "--explore", help="Probability of trying a promising untested configuration."),
    seed: int = typer.Option(None, "--seed", help="Seed of the --explore draw (default: fresh)."),
    override: bool = typer.Option(False, "--override", help="Replace hints the user already set."),
    allow_env: list[str] = typer.Option(None, "--allow-env", metavar="NAME",
                                        help="Let the study set this environment variable although it is not on "
                                             "iotune's safe list (MPI-IO, ROMIO, MPICH, IOR, Darshan, ...); "
                                             "repeatable; also IOTUNE_ALLOW_ENV=NAME,NAME."),
    metric: str = typer.Option(None, "--metric", metavar="REGEX", help="Record the figure the application prints: "
                               "the number in the REGEX's group (last match in its output)."),
    maximize: bool = typer.Option(False, "--maximize/--minimize", help="With --metric: higher is better (a bandwidth) "
                                  "or lower is (a time in seconds, the default)."),
    darshan_lib: str = typer.Option(None, "--darshan", metavar="LIB", help="Preload this Darshan runtime library "
                                    "(libdarshan.so) and record the I/O time of the run's log."),
    wall_time: bool = typer.Option(False, "--wall-time", help="Record the command's wall time rather than the I/O "
                                   "time iotune's PMPI library measures inside it (the default without --metric or "
                                   "Darshan)."),
    output_dir: Path = typer.Option(None, "--output-dir", help="Directory where the application writes: the "
                                    "configuration's file layout (stripe_count, stripe_unit, ...) is set on it "
                                    f"({KNOWN_LAYOUTS})."),
    db: str = DB,
) -> None:
    """Run COMMAND with the best known configuration of the study applied, and record the run as a trial.

    Exits with the command's exit status.
    """
    from iotune.apply.run import run_command
    from iotune.profile import workload_values_from
    from iotune.store import Store
    from iotune.store.engine import masked
    from iotune.stored import StoredStudy

    if workload is not None and darshan is not None:
        raise IotuneError("give the workload once, with --workload")
    if not 0.0 <= explore <= 1.0:  # checked before anything is said or read
        raise IotuneError(f"--explore must be a probability between 0 and 1, got {explore}")
    from iotune.apply.metric import Metric

    if maximize and metric is None:
        raise IotuneError("--maximize says which way --metric REGEX is better: give --metric too")
    if wall_time and (metric is not None or darshan_lib is not None):
        raise IotuneError("--wall-time, --metric and --darshan are objectives of their own: give one")
    measured_by = Metric.parse(metric, maximize) if metric is not None else None
    values, described = workload_values_from(workload or darshan) if (workload or darshan) else (None, None)
    terminal = Terminal()
    with Store(db, create=False) as store:
        record = store.get_study(study) if study is not None else None
        if record is None:
            known = [s.name for s in store.list_studies() if (s.settings or {}).get("source") != "iotune run"]
            listed = ", ".join(known[:10]) + (", ..." if len(known) > 10 else "") if known else \
                "none: measure one with iotune bench SPEC or iotune demo"
            what = "give --study" if study is None else f"no study named {study!r}"
            raise IotuneError(f"{what}: the study whose measurements choose the configuration "
                              f"(studies in {masked(store.url)}: {listed})")
        opened = StoredStudy(store, record)
        if values is None:
            varied = [p.name for p in opened.space.parameters if p.role == "workload" and len(p.levels) > 1]
            if varied:
                terminal.warn(f"no --workload: study {study!r} measured several workloads ({', '.join(varied)} "
                              "vary) and the best configuration of any of them is applied, which may be tuned for "
                              "another workload than this application's; give --workload (name=value pairs, a "
                              "workload YAML or the Darshan log of an earlier run)")
        result = run_command(opened, list(command or []), values, explore=explore, seed=seed,
                             override=override, allow_env=allow_env or (), metric=measured_by, darshan=darshan_lib,
                             output_dir=output_dir, wall_time=wall_time,
                             on_build=lambda mpicc: terminal.info(f"iotune: building iotune's PMPI library with "
                                                                  f"{mpicc} (once for this MPI)"),
                             benchmark=described.to_benchmark_spec() if described is not None else None)
    configuration = result.choice.configuration
    terminal.info(f"iotune: {result.choice.how}: {configuration.describe() or '-'} ({result.choice.reason})")
    for note in result.choice.notes:
        terminal.info(f"iotune: {note}")
    for key, value in result.applied.kept.items():
        terminal.info(f"iotune: kept your {key}={value} ({result.applied.sources[key]}); --override replaces it")
    for key, value in result.applied.overridden.items():
        terminal.info(f"iotune: replaced your {key}={value} ({result.applied.sources[key]})")
    for warning in result.warnings:
        terminal.warn(warning)
    state = "COMPLETE" if result.returncode == 0 else f"FAILED (exit status {result.returncode})"
    if result.source == "metric":
        measured = "no metric found" if result.metric_value is None else \
            f"metric {result.metric_value:g} ({measured_by.direction})"
        state = state if result.metric_value is not None or result.returncode else "FAILED (no metric)"
    elif result.source == "darshan io time":
        measured = f"I/O time {result.seconds:.3f} s (Darshan)"
    elif result.source == "pmpi io time":
        state = state if result.seconds is not None or result.returncode else "FAILED (no PMPI result)"
        measured = "no I/O time (see above)" if result.seconds is None else \
            (f"I/O time {result.seconds:.3f} s (PMPI: the slowest rank's time in MPI-IO calls, measured inside the "
             f"application), {result.bytes} bytes")
    else:
        measured = "the wall time is the only measure (no --metric, no Darshan log)"
    terminal.info(f"iotune: trial {result.trial_id} {state}, {result.wall_seconds:.3f} s wall time; {measured}")
    if result.source == "wall time" and result.returncode == 0:
        from iotune.apply.launch import short_run_warning, start_up
        from iotune.cli.common import default_scratch

        warning = short_run_warning(result.wall_seconds, start_up(list(command or []), default_scratch()))
        if warning:
            terminal.warn(warning)
    sys.stdout.flush()
    raise typer.Exit(result.returncode)
