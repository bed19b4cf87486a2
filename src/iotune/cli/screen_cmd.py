"""``iotune screen``: rank a spec's parameters with a foldover Plackett-Burman design (paper 000, Sec. 4.1)."""

from __future__ import annotations

import signal
from pathlib import Path

import typer

from iotune.cli.bench_cmd import make_runner, prepare_scratch, raise_interrupt, default_scratch, with_progress
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
    from iotune.bench.platform import platform_info
    from iotune.campaign import load_campaign
    from iotune.screening import run_collection, run_screen
    from iotune.store import Store

    check_format(fmt)
    terminal = Terminal()
    space, settings = load_campaign(spec)
    study = study or f"{space.name}-screen"
    scratch = prepare_scratch(scratch or default_scratch())
    previous = signal.signal(signal.SIGTERM, raise_interrupt)
    try:
        with Store(db) as store:
            bench_runner = make_runner(runner, timeout, mpiexec)
            try:
                platform = platform_info(scratch)

                def progress(campaign):
                    return with_progress(terminal, campaign, resume, retry_failed, platform)

                result = run_screen(store, spec, study, bench_runner, scratch, repeats, resume,
                                    system_only=system_only, run=progress)
                if collect is not None:
                    run_collection(store, spec, f"{study}-collect", result.ranking, collect, bench_runner, scratch,
                                   repeats, resume, seed=settings.seed, run=progress)
            finally:
                bench_runner.close()
    finally:
        signal.signal(signal.SIGTERM, previous)
    show_screen(result, fmt, f"screening {study}: {len(result.effects)} parameters, {result.runs} runs")
    if collect is not None:
        terminal.info(f"PB-guided collection: iotune results --study {study}-collect")
