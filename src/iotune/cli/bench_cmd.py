"""``iotune bench`` and ``iotune demo``: run a measurement campaign into the store."""

from __future__ import annotations

import signal
import tempfile
from pathlib import Path

import typer

from iotune.cli.options import DB, MPIEXEC
from iotune.cli.signals import raise_interrupt  # records the signal for the exit status; screen_cmd imports it
from iotune.cli.terminal import Terminal
from iotune.errors import IotuneError

RUNNERS = ("builtin", "ior")


def default_scratch() -> Path:
    return Path(tempfile.gettempdir()) / "iotune-scratch"


def make_runner(kind: str, timeout: float, mpiexec: str | None):
    if kind == "builtin":
        from iotune.bench.runner import BuiltinRunner

        return BuiltinRunner(mpiexec=mpiexec, timeout=timeout)
    if kind == "ior":
        from iotune.bench.ior import IorRunner

        return IorRunner(mpiexec=mpiexec, timeout=timeout)
    raise IotuneError(f"--runner must be one of {', '.join(RUNNERS)}, got {kind!r}")


def prepare_scratch(scratch: Path) -> Path:
    try:
        scratch.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise IotuneError(f"cannot use scratch directory {scratch}: {error.strerror or error}") from None
    return scratch


def run_campaign(spec_path: Path, study: str, db: str | None, resume: bool,
                 retry_failed: bool, repeats: int | None, scratch: Path, runner_kind: str, timeout: float,
                 seed: int | None = None, samples: int | None = None, design: str | None = None,
                 mpiexec: str | None = None, adaptive: dict | None = None, testbed_dir: Path | None = None,
                 storage_defaults: dict | None = None):
    """Shared body of ``bench`` and ``testbed bench``; returns (store URL, study name, space).

    A spec with storage parameters runs on testbeds (in ``testbed_dir``, StorageConfig
    fields not varied by the spec from ``storage_defaults``), one per storage configuration."""
    from iotune.bench.platform import platform_info
    from iotune.campaign import Campaign, CampaignSettings, load_campaign
    from iotune.store import Store

    terminal = Terminal()
    space, settings = load_campaign(spec_path)
    overrides = {k: v for k, v in (("repeats", repeats), ("seed", seed), ("samples", samples),
                                   ("design", design), ("adaptive", adaptive)) if v is not None}
    if overrides:
        settings = CampaignSettings.from_dict({**settings.to_dict(), **overrides})
    scratch = prepare_scratch(scratch)
    previous = signal.signal(signal.SIGTERM, raise_interrupt)
    try:
        with Store(db) as store:
            runner = make_runner(runner_kind, timeout, mpiexec)
            try:
                campaign = Campaign(store, study, space, settings, runner, scratch,
                                    storage=storage_provider(space, runner_kind, timeout, mpiexec, testbed_dir,
                                                             storage_defaults))
                with_progress(terminal, campaign, resume, retry_failed, platform_info(scratch))
            finally:
                runner.close()
            return store.url, study, space
    finally:
        signal.signal(signal.SIGTERM, previous)


def storage_provider(space, runner_kind: str, timeout: float, mpiexec: str | None, testbed_dir: Path | None,
                     defaults: dict | None):
    """A TestbedProvider when ``space`` has storage parameters, else None."""
    from iotune.bench.mapping import storage_parameters

    if not storage_parameters(space):
        return None
    from iotune.testbed import TestbedProvider

    provider = TestbedProvider(testbed_dir, lambda wrapper: make_runner(runner_kind, timeout, wrapper), mpiexec,
                               defaults)
    provider.check()
    Terminal().info("the spec varies storage: each storage configuration is measured on its own testbed")
    return provider


def with_progress(terminal: Terminal, campaign, resume: bool, retry_failed: bool, platform: dict):
    state = {"bar": None, "context": None, "failed": 0, "done": 0}

    def on_start(total: int) -> None:
        state["context"] = terminal.progress(f"{campaign.study_name}", total)
        state["bar"] = state["context"].__enter__()

    def on_trial(configuration, repeat, measurement) -> None:
        if measurement.status == "FAILED":
            state["failed"] += 1
            terminal.warn(f"trial failed ({configuration.describe()}, repeat {repeat}): {measurement.error}")
        state["done"] += 1
        state["bar"].advance(f"failed {state['failed']}")

    try:
        report = campaign.run(resume=resume, retry_failed=retry_failed, platform=platform,
                              on_start=on_start, on_trial=on_trial)
    finally:
        if state["context"] is not None:
            state["context"].__exit__(None, None, None)
    summary = (f"{report.completed} trials completed, {report.failed} failed, {report.already_done} already "
               f"in the store" + (f", {report.rerun_running} re-run after a dead campaign" if report.rerun_running
                                  else "") + f" ({report.seconds:.1f} s)")
    if report.not_needed:
        adaptive = campaign.settings.adaptive
        summary += (f"; adaptive repeats: {report.not_needed} trials not needed once the mean was known to "
                    f"±{100 * adaptive['rel_half_width']:g}% at {100 * adaptive['confidence']:g}% confidence "
                    f"(about {report.saved_seconds:.1f} s saved)")
    if report.interrupted:
        terminal.warn(f"interrupted: {summary}; continue with --resume")
        raise KeyboardInterrupt
    terminal.success(summary)
    return report


def bench(spec: Path = typer.Argument(..., help="Campaign spec: a space with optional benchmark: and campaign:."),
          study: str = typer.Option(None, "--study", "-s", help="Study name (default: the spec's name)."),
          resume: bool = typer.Option(False, "--resume", help="Continue an existing study: run only what is missing."),
          retry_failed: bool = typer.Option(False, "--retry-failed", help="With --resume, also re-run FAILED trials."),
          repeats: int = typer.Option(None, "--repeats", "-r", help="Repeats per configuration (overrides the spec)."),
          design: str = typer.Option(None, "--design", help="full or random (overrides the spec)."),
          samples: int = typer.Option(None, "--samples", help="Configurations for a random design."),
          seed: int = typer.Option(None, "--seed", help="Seed of the random design and of the run order."),
          scratch: Path = typer.Option(None, "--scratch", help="Directory the benchmark writes into (default: "
                                                               "iotune-scratch under the system temp dir)."),
          runner: str = typer.Option("builtin", "--runner", help="builtin (MPI-IO/POSIX via mpi4py) or ior."),
          timeout: float = typer.Option(600.0, "--timeout", help="Seconds before a trial is killed and failed."),
          adaptive: float = typer.Option(None, "--adaptive", help="Repeat each configuration only until the "
                                         "confidence interval of its mean time is within this relative half-width "
                                         "(e.g. 0.05); --repeats is then the cap."),
          confidence: float = typer.Option(0.95, "--confidence", help="Confidence level for --adaptive."),
          min_repeats: int = typer.Option(3, "--min-repeats", help="Repeats before --adaptive may stop."),
          mpiexec: str = MPIEXEC, db: str = DB) -> None:
    """Measure every planned configuration of a spec, with repeats, into the store (resumable)."""
    from iotune.campaign import load_campaign

    if study is None:
        study = load_campaign(spec)[0].name
    url, study, _ = run_campaign(spec, study, db, resume, retry_failed, repeats, scratch or default_scratch(),
                                 runner, timeout, seed, samples, design, mpiexec,
                                 None if adaptive is None else {"rel_half_width": adaptive, "confidence": confidence,
                                                                "min_repeats": min_repeats})
    Terminal().info(f"results: iotune results --study {study}" + (f" --db {url}" if db else ""))


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
    from iotune.demo import run_demo
    from iotune.store import Store

    terminal = Terminal()
    study = study or datetime.now().strftime("demo-%Y%m%d-%H%M%S")
    scratch = prepare_scratch(scratch or default_scratch())
    terminal.info("iotune demo: ROMIO collective-buffering hints against access patterns, measured with real "
                  "MPI-IO (2 processes, one shared file, fsync at close, caches dropped before reads when root)")
    platform = platform_info(scratch)
    previous = signal.signal(signal.SIGTERM, raise_interrupt)
    try:
        with Store(db) as store:
            runner = make_runner("builtin", 600.0, mpiexec)
            try:
                outcome = run_demo(store, study, runner, scratch,
                                   run=lambda campaign: with_progress(terminal, campaign, resume, False, platform),
                                   repeats=repeats, say=terminal.info)
            finally:
                runner.close()
    finally:
        signal.signal(signal.SIGTERM, previous)
    show_screen(outcome.screen, "table", f"study {study}-screen: which parameters matter")
    show_best(db, study, "table")
    show_judgement(terminal, outcome)


def testbed_demo(db: str | None, study: str, resume: bool, repeats: int | None, mpiexec: str | None) -> None:
    """The bundled storage campaign: each file system x device class built on a testbed, measured, torn down."""
    from importlib import resources

    from iotune.cli.results_cmd import show_best

    Terminal().info("iotune demo --testbed: ext4 and xfs on loop devices throttled like slow (33 MB/s) and fast "
                    "(128 MB/s) cloud volumes, against the transfer size; 2 MPI processes, 32 MiB each")
    with resources.as_file(resources.files("iotune.data").joinpath("testbed_demo.yaml")) as spec:
        run_campaign(spec, study, db, resume, False, repeats, default_scratch(), "builtin", 600.0, mpiexec=mpiexec)
    show_best(db, study, "table")


def show_judgement(terminal: Terminal, outcome) -> None:
    """The recommendation for the held-out workload beside what was then measured for it."""
    from iotune.demo import HELD_OUT, _describe

    rows = []
    for judged in outcome.judged:
        system = {k: v for k, v in judged.configuration.items() if k not in HELD_OUT and v is not None}
        measured = judged.measured
        rows.append([judged.rank, _describe(system), f"{judged.predicted_s:.3f}",
                     f"{measured.mean_time:.3f} ± {measured.std_time:.3f} (n={measured.n})" if measured else "-",
                     f"{judged.measured_rank} of {outcome.configurations}" if judged.measured_rank else "-"])
    terminal.emit(["rank", "recommended configuration", "predicted s", "measured s (mean ± sd)", "measured rank"],
                  rows, "table", title=f"unseen workload {_describe(HELD_OUT)}: recommended, then measured")
    best, default = outcome.measured_best, outcome.measured_default
    top = outcome.judged[0].measured
    order = outcome.judged[0].configuration
    best_system = {k: best.config[k] for k in order if k not in HELD_OUT and best.config.get(k) is not None}
    lines = [f"{outcome.recommendation.co_champions} of {outcome.recommendation.evaluated} candidates tie for the "
             "best prediction (co-champions); the table shows the first ones",
             f"best measured: {_describe(best_system)} at {best.mean_time:.3f} s"]
    if outcome.regret is not None:
        lines.append(f"the top recommendation measured {100 * outcome.regret:.1f}% slower than the best measured")
    if default and top:
        lines.append(f"against the default configuration ({default.mean_time:.3f} s) it is "
                     f"{default.mean_time / top.mean_time:.2f}x as fast")
    for line in lines:
        terminal.info(line)
