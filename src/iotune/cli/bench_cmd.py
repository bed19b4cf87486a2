"""``iotune bench``: measure a spec's configurations, chosen by a sampler, with repeats, into the store."""

from __future__ import annotations

import shlex
from pathlib import Path

import typer

from iotune.cli.common import (
    check_hdf5_ready,
    check_runnable_configurations,
    executor_job,
    prepare_scratch,
    results_command,
    run_campaign,
    warn_unknown_hints,
)
from iotune.cli.options import (
    DB,
    EXECUTOR,
    GRACE,
    JOB_SETUP,
    MPIEXEC,
    NODES_PER_TRIAL,
    PARTITION,
    PRIOR_STUDY,
    REPLAY_SCALE,
    RUNNER,
    SBATCH_OPTION,
    TIME_LIMIT,
    WORKERS,
    WORKLOAD,
)
from iotune.cli.terminal import Terminal
from iotune.runners.registry import DEFAULT as DEFAULT_RUNNER

SAMPLER_HELP = ("How configurations are chosen (default: the spec's, else full): full, random, lhs, screening, "
                "pb-collect, pb-walk, nelder-mead, annealing, genetic, pso, or transfer (the tuner of `iotune tune`: "
                "one --workload's runs within --budget runs, other studies as --prior-study).")


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
          runner: str = RUNNER,
          timeout: float = typer.Option(600.0, "--timeout", help="Seconds before a trial is killed and failed."),
          adaptive: float = typer.Option(None, "--adaptive", help="Repeat each configuration only until the "
                                         "confidence interval of its mean time is within this relative half-width "
                                         "(e.g. 0.05); --repeats is then the cap."),
          confidence: float = typer.Option(0.95, "--confidence", help="Confidence level for --adaptive."),
          min_repeats: int = typer.Option(3, "--min-repeats", help="Repeats before --adaptive may stop."),
          workload: str = WORKLOAD, prior: list[str] = PRIOR_STUDY,
          executor: str = EXECUTOR, workers: int = WORKERS, partition: str = PARTITION, time_limit: str = TIME_LIMIT,
          nodes_per_trial: int = NODES_PER_TRIAL, sbatch_option: list[str] = SBATCH_OPTION,
          job_setup: list[str] = JOB_SETUP, grace: float = GRACE, replay_scale: float = REPLAY_SCALE,
          mpiexec: str = MPIEXEC, db: str = DB) -> None:
    """Measure a spec's configurations (chosen by its sampler), with repeats, into the store; resumable."""
    from iotune.spec import load_spec

    loaded = load_spec(spec).with_campaign(
        repeats=repeats, sampler=sampler or design, budget=budget if budget is not None else samples, seed=seed,
        adaptive=None if adaptive is None else {"rel_half_width": adaptive, "confidence": confidence,
                                                "min_repeats": min_repeats})
    loaded = _transfer_options(loaded, workload, prior)
    study = study or loaded.name
    warn_unknown_hints(loaded)
    check_runnable_configurations(loaded)
    check_hdf5_ready(loaded, runner)
    if resume:
        refuse_testbed_resume(db, study, loaded)
    job = executor_job(executor, workers, partition, time_limit, nodes_per_trial, sbatch_option, job_setup, grace)
    if job is not None:
        from iotune.cli.slurm_executor import measure_on_slurm

        measure_on_slurm(loaded, study, db, job, resume=resume, retry_failed=retry_failed, scratch=scratch,
                         runner=runner, timeout=timeout, mpiexec=mpiexec, replay_scale=replay_scale, grace=grace)
    else:
        measure_spec(loaded, study, db, resume=resume, retry_failed=retry_failed, scratch=scratch, runner=runner,
                     timeout=timeout, mpiexec=mpiexec, replay_scale=replay_scale)
    Terminal().info(f"results: {results_command(study, db)}")


def _transfer_options(spec, workload: str | None, prior: list[str]):
    """The spec with the transfer sampler's workload and prior studies among its options (so that every executor
    reads them where it reads the sampler); IotuneError when they are given to another sampler or missing."""
    from iotune.errors import IotuneError

    transfer = spec.campaign.sampler == "transfer"
    if (workload or prior) and not transfer:
        raise IotuneError("--workload and --prior-study say what the transfer sampler tunes: add --sampler transfer")
    if not transfer:
        return spec
    if spec.campaign.budget is None:
        raise IotuneError("--sampler transfer needs --budget: the runs to spend on the workload")
    options = dict(spec.campaign.options)
    if workload:
        from iotune.profile import workload_values_from

        options["workload"] = workload_values_from(workload)[0]
    if prior:
        options["prior_studies"] = list(prior)
    return spec.with_campaign(options=options)


def refuse_testbed_resume(db: str | None, study: str, spec) -> None:
    """A study measured by ``iotune testbed bench`` holds the testbed's storage in its spec; continuing it with
    ``iotune bench --resume`` would measure the missing repeats unthrottled, on other storage, into the same study."""
    from iotune.errors import IotuneError
    from iotune.store import Store
    from iotune.study.study import spec_of

    with Store(db) as store:
        record = store.get_study(study)
        stored = spec_of(record) if record is not None else None
    if stored is not None and stored.storage and stored.storage != spec.storage:
        options = " ".join(f"--{key.replace('_', '-')} {value}" for key, value in sorted(stored.storage.items())
                           if key in TESTBED_OPTIONS) + (" --raid0" if stored.storage.get("raid0") else "")
        raise IotuneError(f"study {study!r} was measured on a testbed ({_storage(stored.storage)}); continue it on "
                          f"the same storage with `iotune testbed bench SPEC --study {shlex.quote(study)} --resume"
                          f"{' ' + options if options else ''}`, not `iotune bench --resume`")


TESTBED_OPTIONS = ("fs", "devices", "scheduler", "write_mbps", "read_mbps", "iops", "mount_options", "size_mib")


def _storage(storage: dict) -> str:
    return ", ".join(f"{key}={value}" for key, value in sorted(storage.items()))


def measure_spec(spec, study: str, db: str | None, *, resume: bool = False, retry_failed: bool = False,
                 scratch: Path | None = None, runner: str = DEFAULT_RUNNER, timeout: float = 600.0,
                 mpiexec: str | None = None, testbed_dir: Path | None = None, configurations=None,
                 terminal: Terminal | None = None, replay_scale: float = 1.0):
    """Measure ``spec`` into ``study`` of the store ``db`` (:func:`iotune.api.run_bench`), with a progress bar;
    returns the campaign's report."""
    from iotune.api import run_bench
    from iotune.store import Store
    from iotune.store.engine import masked

    terminal = terminal or Terminal()
    scratch = prepare_scratch(scratch, spec, announce=False, terminal=terminal)

    def run(campaign):
        if spec.uses_testbed:
            where = "on testbeds (a file system per storage configuration)"
        else:
            platform = campaign.worker.platform or {}
            where = f"in {scratch} ({platform.get('fs_type') or 'unknown'} file system on {platform.get('hostname')})"
        terminal.info(f"study {study}: measuring {where} into {masked(campaign.store.url)}")
        return run_campaign(campaign, terminal)

    with Store(db) as store:
        return run_bench(store, spec, study, runner=runner, scratch=scratch, resume=resume, retry_failed=retry_failed,
                         timeout=timeout, mpiexec=mpiexec, testbed_dir=testbed_dir, configurations=configurations,
                         replay_scale=replay_scale, say=terminal.info, run=run)
