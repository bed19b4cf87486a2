"""``iotune profile`` (what an application does with I/O) and ``iotune run`` (run it tuned, paper 001 Fig. 2)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from iotune.cli.options import DB, FORMAT
from iotune.cli.terminal import Terminal, check_format
from iotune.errors import IotuneError
from iotune.units import format_size

SIZE_FIELDS = ("bytes_per_process", "request_size", "bytes_read", "bytes_written")


def profile(
    source: str = typer.Argument(..., help="A Darshan log, a workload YAML file, or an IOR command line (quoted)."),
    fmt: str = FORMAT,
) -> None:
    """Describe an application's I/O (paper 000, Section 2.2) and the IOR run nearest to it."""
    from iotune.profile import load_workload

    check_format(fmt)
    terminal = Terminal()
    workload = load_workload(source)
    data = workload.to_dict()
    data["benchmark"] = workload.to_benchmark_spec().to_dict()
    if fmt == "json":
        terminal.emit([], [], "json", records=data)
        return
    rows = []
    for name, value in data.items():
        if name in ("notes", "warnings", "benchmark"):
            continue
        if name in SIZE_FIELDS:
            value = f"{format_size(value)} ({value} B)"
        elif isinstance(value, list):
            value = ", ".join(value)
        rows.append([name, value])
    spec = data["benchmark"]
    rows.append(["benchmark", f"api={spec['api']} processes={spec['processes']} block_size={format_size(spec['block_size'])} "
                              f"transfer_size={format_size(spec['transfer_size'])} segments={spec['segment_count']} "
                              f"file_per_process={spec['file_per_process']} collective={spec['collective']} "
                              f"operation={spec['operation']}"])
    rows += [["note", note] for note in workload.notes] + [["warning", w] for w in workload.warnings]
    terminal.emit(["field", "value"], rows, fmt, title=f"workload of {workload.source}")
    for warning in workload.warnings:
        terminal.warn(warning)


def run(
    command: list[str] = typer.Argument(None, help="The command to run, after --."),
    study: str = typer.Option("demo", "--study", "-s", help="Study whose results choose the configuration."),
    workload_file: Path = typer.Option(None, "--workload", "-w", help="The application's workload as YAML."),
    darshan: Path = typer.Option(None, "--from-darshan", help="The workload from a Darshan log of an earlier run."),
    explore: float = typer.Option(0.0, "--explore", help="Probability of trying a promising untested configuration."),
    seed: int = typer.Option(None, "--seed", help="Seed of the --explore draw (default: fresh)."),
    override: bool = typer.Option(False, "--override", help="Replace hints the user already set."),
    db: str = DB,
) -> None:
    """Run COMMAND with the best known configuration of the study applied, and record the run as a trial.

    Exits with the command's exit status.
    """
    from iotune.apply.run import run_command
    from iotune.profile import from_darshan, from_yaml
    from iotune.store import Store

    if workload_file is not None and darshan is not None:
        raise IotuneError("give --workload or --from-darshan, not both")
    workload = from_yaml(workload_file) if workload_file else from_darshan(darshan) if darshan else None
    terminal = Terminal()
    with Store(db) as store:
        result = run_command(store, study, list(command or []), workload, explore=explore, seed=seed,
                             override=override)
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
