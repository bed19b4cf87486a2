"""``iotune run``: run an application with the best known configuration applied, and record it (paper 001 Fig. 2)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from iotune.cli.options import DB
from iotune.cli.terminal import Terminal
from iotune.errors import IotuneError

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
    db: str = DB,
) -> None:
    """Run COMMAND with the best known configuration of the study applied, and record the run as a trial.

    Exits with the command's exit status.
    """
    from iotune.apply.run import run_command
    from iotune.profile import workload_values_from
    from iotune.store import Store

    if study is None:
        raise IotuneError("give --study: the study whose measurements choose the configuration "
                          "(iotune studies lists them)")
    if workload is not None and darshan is not None:
        raise IotuneError("give the workload once, with --workload")
    values, described = workload_values_from(workload or darshan) if (workload or darshan) else (None, None)
    terminal = Terminal()
    with Store(db) as store:
        result = run_command(store, study, list(command or []), values, explore=explore, seed=seed,
                             override=override, allow_env=allow_env or (),
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
    terminal.info(f"iotune: trial {result.trial_id} {state}, {result.wall_seconds:.3f} s wall time")
    sys.stdout.flush()
    raise typer.Exit(result.returncode)
