"""``iotune screen``: rank a spec's parameters with a foldover Plackett-Burman design (paper 000, Sec. 4.1)."""

from __future__ import annotations

from pathlib import Path

import typer

from iotune.cli.bench_cmd import measure_spec
from iotune.cli.options import DB, FORMAT, MPIEXEC
from iotune.cli.terminal import Terminal, check_format

BAR_WIDTH = 30
_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(fraction: float, width: int = BAR_WIDTH) -> str:
    """A horizontal bar of unicode blocks, ``fraction`` (0..1) of ``width`` characters long."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, rest = divmod(eighths, 8)
    return "█" * full + (_EIGHTHS[rest] if rest else "")


def show_screen(result, fmt: str, title: str) -> None:
    """The ranking as a table with a bar per |effect on time|, or as JSON/CSV rows."""
    terminal = Terminal()
    rows = result.rows()
    columns = ["rank", "name", "low", "high", "effect_s", "effect_bandwidth"]
    if fmt != "table":
        terminal.emit(columns, [[r[c] for c in columns] for r in rows], fmt, records=rows)
        return
    largest = max(abs(r["effect_s"]) for r in rows) or 1.0
    table = [[r["rank"], r["name"], r["low"], r["high"], f"{r['effect_s']:+.3f}",
              "" if r["effect_bandwidth"] is None else f"{r['effect_bandwidth']:+.0f}",
              bar(abs(r["effect_s"]) / largest)] for r in rows]
    terminal.emit(["rank", "parameter", "low", "high", "effect on time (s)", "effect (MiB/s)", "|effect on time|"],
                  table, "table", title=title)
    terminal.info(f"effect = sum over the {result.runs} runs of (+1 high, -1 low) x mean I/O time, paper 000 "
                  "Sec. 4.1; positive: the high value is slower")


def screen(spec: Path = typer.Argument(..., help="Campaign spec; an optional 'screening: levels:' section sets "
                                                 "[low, high] per parameter (default: first and last level)."),
           study: str = typer.Option(None, "--study", "-s", help="Screening study name (default: <spec name>-screen)."),
           repeats: int = typer.Option(None, "--repeats", "-r", help="Repeats per design row (overrides the spec)."),
           resume: bool = typer.Option(False, "--resume", help="Continue an existing screening study."),
           retry_failed: bool = typer.Option(False, "--retry-failed", help="With --resume, re-run FAILED trials."),
           system_only: bool = typer.Option(False, "--system-only", help="Screen only system parameters."),
           collect: int = typer.Option(None, "--collect", help="Then measure N PB-guided configurations (top-ranked "
                                                               "parameters first) into study <study>-collect."),
           scratch: Path = typer.Option(None, "--scratch", help="Directory the benchmark writes into."),
           runner: str = typer.Option("builtin", "--runner", help="builtin (MPI-IO/POSIX via mpi4py) or ior."),
           timeout: float = typer.Option(600.0, "--timeout", help="Seconds before a trial is killed and failed."),
           mpiexec: str = MPIEXEC, db: str = DB, fmt: str = FORMAT) -> None:
    """Screen a spec's parameters (foldover PB design, resumable) and print them ranked by effect."""
    from dataclasses import replace

    from iotune.screening import load_screen
    from iotune.spec import load_spec
    from iotune.store import Store

    check_format(fmt)
    loaded = load_spec(spec)
    if system_only:
        loaded = replace(loaded, screening=replace(loaded.screening, system_only=True))
    study = study or f"{loaded.name}-screen"
    options = dict(scratch=scratch, runner=runner, timeout=timeout, mpiexec=mpiexec, retry_failed=retry_failed)
    repeats = repeats or loaded.campaign.repeats
    screening = replace(loaded, campaign=replace(loaded.campaign, sampler="screening", budget=None, options={},
                                                 repeats=repeats))
    measure_spec(screening, study, db, resume=resume, **options)
    with Store(db) as store:
        result = load_screen(store, study)
    if collect is not None:
        guided = replace(loaded, campaign=replace(loaded.campaign, sampler="pb-collect", budget=collect,
                                                  repeats=repeats, options={"ranking": result.ranking}))
        measure_spec(guided, f"{study}-collect", db, resume=resume, **options)
    show_screen(result, fmt, f"screening {study}: {len(result.effects)} parameters, {result.runs} runs")
    if collect is not None:
        Terminal().info(f"PB-guided collection: iotune results --study {study}-collect")
