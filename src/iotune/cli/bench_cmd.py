"""``iotune bench``: measure a spec's configurations, chosen by a sampler, with repeats, into the store."""

from __future__ import annotations

from pathlib import Path

import typer

from iotune.cli.common import make_runner, prepare_scratch, run_campaign, storage_provider
from iotune.cli.options import DB, MPIEXEC
from iotune.cli.terminal import Terminal

SAMPLER_HELP = ("How configurations are chosen (default: the spec's, else full): full, random, lhs, screening, "
                "pb-collect, pb-walk, nelder-mead, annealing, genetic, pso.")


def bench(spec: Path = typer.Argument(..., help="Campaign spec: a space with optional benchmark:, campaign:, "
                                                "screening: and storage: sections."),
          study: str = typer.Option(None, "--study", "-s", help="Study name (default: the spec's name)."),
          sampler: str = typer.Option(None, "--sampler", help=SAMPLER_HELP),
          budget: int = typer.Option(None, "--budget", help="Configurations to measure at most (overrides the spec)."),
          resume: bool = typer.Option(False, "--resume", help="Continue an existing study: run only what is missing."),
          retry_failed: bool = typer.Option(False, "--retry-failed", help="With --resume, also re-run FAILED trials."),
          repeats: int = typer.Option(None, "--repeats", "-r", help="Repeats per configuration (overrides the spec)."),
          seed: int = typer.Option(None, "--seed", help="Seed of the sampler and of the run order."),
          design: str = typer.Option(None, "--design", hidden=True, help="Older name of --sampler."),
          samples: int = typer.Option(None, "--samples", hidden=True, help="Older name of --budget."),
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
    """Measure a spec's configurations (chosen by its sampler), with repeats, into the store; resumable."""
    from iotune.spec import load_spec

    loaded = load_spec(spec).with_campaign(
        repeats=repeats, sampler=sampler or design, budget=budget if budget is not None else samples, seed=seed,
        adaptive=None if adaptive is None else {"rel_half_width": adaptive, "confidence": confidence,
                                                "min_repeats": min_repeats})
    study = study or loaded.name
    measure_spec(loaded, study, db, resume=resume, retry_failed=retry_failed, scratch=scratch, runner=runner,
                 timeout=timeout, mpiexec=mpiexec)
    Terminal().info(f"results: iotune results --study {study}" + (f" --db {db}" if db else ""))


def measure_spec(spec, study: str, db: str | None, *, resume: bool = False, retry_failed: bool = False,
                 scratch: Path | None = None, runner: str = "builtin", timeout: float = 600.0,
                 mpiexec: str | None = None, testbed_dir: Path | None = None, configurations=None,
                 terminal: Terminal | None = None):
    """Measure ``spec`` into ``study`` of the store ``db``, with a progress bar; returns the campaign's report."""
    from iotune.bench.platform import platform_info
    from iotune.store import Store
    from iotune.study.measure import prepare

    terminal = terminal or Terminal()
    scratch = prepare_scratch(scratch)
    platform = platform_info(scratch)
    with Store(db) as store:
        bench_runner = make_runner(runner, timeout, mpiexec)
        try:
            storage = storage_provider(spec, runner, timeout, mpiexec, testbed_dir)
            campaign = prepare(store, spec, study, bench_runner, scratch, resume=resume, retry_failed=retry_failed,
                               storage=storage, platform=platform, configurations=configurations)
            where = "on testbeds (a file system per storage configuration)" if spec.uses_testbed else \
                f"in {scratch} ({platform.get('fs_type') or 'unknown'} file system on {platform.get('hostname')})"
            terminal.info(f"study {study}: measuring {where} into {store.url}")
            try:
                return run_campaign(campaign, terminal)
            finally:
                campaign.worker.close()
        finally:
            bench_runner.close()
