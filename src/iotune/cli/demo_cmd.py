"""``iotune demo``: a real tuning campaign on this machine, end to end (and ``--testbed``: the storage itself)."""

from __future__ import annotations

from pathlib import Path

import typer

from iotune.cli.common import prepare_scratch, run_campaign
from iotune.cli.options import DB, MPIEXEC
from iotune.cli.terminal import Terminal
from iotune.runners.registry import DEFAULT, make_runner


def demo(db: str = DB,
         study: str = typer.Option(None, "--study", "-s", help="Study name (default: demo-<date>-<time>)."),
         resume: bool = typer.Option(False, "--resume", help="Continue the named demo study."),
         repeats: int = typer.Option(None, "--repeats", "-r", help="Repeats per configuration (default 3)."),
         scratch: Path = typer.Option(None, "--scratch", help="Directory the benchmark writes into."),
         testbed: bool = typer.Option(False, "--testbed", help="Tune the storage itself instead (root): file "
                                      "system and device class on throttled loop devices (testbed_demo.yaml)."),
         mpiexec: str = MPIEXEC) -> None:
    """A real tuning campaign on this machine: screen, measure, train, recommend for an unseen workload, check it."""
    from datetime import datetime

    if testbed:
        return testbed_demo(db, study or datetime.now().strftime("testbed-demo-%Y%m%d-%H%M%S"), resume, repeats,
                            mpiexec)

    from iotune.bench.platform import platform_info
    from iotune.cli.results_cmd import show_best
    from iotune.cli.screen_cmd import show_screen
    from iotune.cli.tune_cmd import show_step
    from iotune.demo import TUNE_BUDGET, run_demo
    from iotune.store import Store

    terminal = Terminal()
    study = study or datetime.now().strftime("demo-%Y%m%d-%H%M%S")
    scratch = prepare_scratch(scratch)
    terminal.info("iotune demo: ROMIO collective-buffering hints against access patterns, measured with real "
                  "MPI-IO (2 processes, one shared file, fsync at close, caches dropped before reads when root)")
    platform = platform_info(scratch)
    with Store(db) as store:
        runner = make_runner(DEFAULT, 600.0, mpiexec)
        try:
            outcome = run_demo(store, study, runner, scratch, run=lambda campaign: run_campaign(campaign, terminal),
                               repeats=repeats, say=terminal.info, resume=resume, platform=platform,
                               on_step=lambda step, so_far: show_step(terminal, step, so_far, TUNE_BUDGET))
        finally:
            runner.close()
    show_screen(outcome.screen, "table", f"study {study}-screen: which parameters matter")
    show_best(db, study, "table")
    show_judgement(terminal, outcome)


def testbed_demo(db: str | None, study: str, resume: bool, repeats: int | None, mpiexec: str | None) -> None:
    """The bundled storage campaign: each file system x device class built on a testbed, measured, torn down."""
    from importlib import resources

    from iotune.cli.bench_cmd import measure_spec
    from iotune.cli.results_cmd import show_best
    from iotune.spec import CampaignSpec

    Terminal().info("iotune demo --testbed: ext4 and xfs on loop devices throttled like slow (33 MB/s) and fast "
                    "(128 MB/s) cloud volumes, against the transfer size; 2 MPI processes, 32 MiB each")
    text = resources.files("iotune.data").joinpath("testbed_demo.yaml").read_text()
    spec = CampaignSpec.from_text(text, source="testbed_demo.yaml").with_campaign(repeats=repeats)
    measure_spec(spec, study, db, resume=resume, mpiexec=mpiexec)
    show_best(db, study, "table")


def show_judgement(terminal: Terminal, outcome) -> None:
    """The default, both picks and the fastest for the held-out workload as measured at the end; then the verdict."""
    from iotune.demo import HELD_OUT, _describe, _settings, verdict

    system = [p.name for p in outcome.spec.space.system_parameters]
    fastest = outcome.truth[0]
    rows = []
    answer = outcome.answer.best if outcome.answer is not None else None
    for label, configuration in (("default", outcome.default), ("the model's pick (no run)", outcome.model_pick),
                                 ("iotune recommend's answer (no run)", answer),
                                 (f"the tuner's pick ({outcome.tuned.runs} runs)", outcome.tuned_pick),
                                 ("fastest measured", fastest.config)):
        measured = None if configuration is None else outcome.measured(configuration)
        if configuration is None or measured is None:
            rows.append([label, "-" if configuration is None else _settings(configuration, system), "-", "-", "-"])
            continue
        rows.append([label, _settings(configuration, system),
                     f"{measured.mean_time:.3f} (one run)" if measured.n == 1 else
                     f"{measured.mean_time:.3f} ± {measured.std_time:.3f} (n={measured.n})",
                     f"{outcome.rank(configuration)} of {len(outcome.truth)}",
                     _vs_fastest(measured.mean_time / fastest.mean_time)])
    terminal.emit(["", "hints", "measured I/O time s (mean ± sd)", "rank", "vs fastest"], rows, "table",
                  title=f"unseen workload {_describe(HELD_OUT)}: every configuration measured at the end")
    for line in verdict(outcome):
        terminal.info(line)


def _vs_fastest(ratio: float) -> str:
    """``+12.0%`` slower than the fastest, or from twice on ``24.7x`` (thousands of percent are hard to read)."""
    return f"{ratio:.3g}x" if ratio >= 2 else f"{100 * (ratio - 1):+.1f}%"
