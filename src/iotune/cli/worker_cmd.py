"""``iotune worker``: claim a study's queued trials from the store, run them, commit them, until nothing is left."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from iotune.cli.common import prepare_scratch, runner_and_storage
from iotune.cli.options import DB, MPIEXEC, REPLAY_SCALE, RUNNER
from iotune.cli.terminal import Terminal


def worker(study: str = typer.Option(..., "--study", "-s", help="The study whose queued trials to run."),
           db: str = DB,
           scratch: Path = typer.Option(None, "--scratch", help="Directory the benchmark writes into, may be "
                                        "shared by many nodes (default: iotune-scratch under the system temp dir)."),
           max_trials: int = typer.Option(None, "--max-trials", min=1, help="Leave after this many trials."),
           idle_exit: float = typer.Option(None, "--idle-exit", min=0, help="Leave after this many seconds without "
                                           "a trial to run, even while the study's controller lives."),
           grace: float = typer.Option(None, "--grace", min=1, help="Seconds without a heartbeat after which a "
                                       "RUNNING trial (its worker presumed dead) or the controller's lease is "
                                       "taken over (default 120)."),
           poll_max: float = typer.Option(2.0, "--poll-max", min=0.01, help="Longest pause, in seconds, between two "
                                          "looks at an empty queue."),
           runner: str = RUNNER,
           timeout: float = typer.Option(600.0, "--timeout", help="Seconds before a trial is killed and failed."),
           replay_scale: float = REPLAY_SCALE,
           wait: float = typer.Option(None, "--wait", min=0, help="Seconds to wait for the store and the study "
                                      "to be created by their controller when they do not exist yet (default: "
                                      "the grace period; 0: do not wait)."),
           mpiexec: str = MPIEXEC) -> None:
    """Run a study's queued trials until the queue stays empty and no controller will queue more.

    Exits 0 when done; SIGTERM (scancel, a time limit, pre-emption) gives the
    trial in flight back to the queue and exits 143, SIGINT exits 130.
    """
    from iotune.bench.platform import platform_info
    from iotune.cli import signals
    from iotune.study import Worker
    from iotune.study.slurm import allocation
    from iotune.study.worker import GRACE_S, HEARTBEAT_S

    terminal = Terminal()
    try:
        store, opened = _open_when_created(db, study, (grace or GRACE_S) if wait is None else wait, terminal)
        with store:
            where = prepare_scratch(scratch)
            slurm = allocation()
            nodes = (slurm or {}).get("nodes") or 1
            bench_runner, storage = runner_and_storage(opened.spec, runner, timeout, mpiexec, where,
                                                       replay_scale=replay_scale, nodes=nodes)
            grace = grace or GRACE_S
            done = Worker(opened, bench_runner, where, storage=storage, platform=platform_info(where),
                          grace_s=grace, heartbeat_s=min(HEARTBEAT_S, grace / 4),
                          extra={"slurm": slurm} if slurm else {}, on_trial=_log_trial(terminal))
            job = f" in Slurm job {slurm['job']}_{slurm['task']} on {nodes} node(s)" if slurm else ""
            terminal.info(f"worker {done.owner}{job}: study {study} in {store!r}, scratch {where}")
            try:
                reason = done.serve(max_trials=max_trials, idle_exit=idle_exit, poll_max_s=poll_max)
            finally:
                try:
                    done.close()
                finally:
                    bench_runner.close()
            terminal.info(f"worker {done.owner}: {_summary(done.report)}; {reason}")
    except KeyboardInterrupt:  # SIGINT, SIGTERM, SIGHUP (iotune.cli.signals): the exit status says which
        terminal.warn(f"worker stopped by {signals.interrupted_by().name}: the trial in flight went back to the "
                      "queue")
        raise


def _open_when_created(db: str | None, study: str, wait_s: float, terminal: Terminal):
    """(store, study), waiting up to ``wait_s`` seconds for a controller started at the same time (a Slurm job
    array's first task) to create the SQLite store and the study; any other error is raised at once."""
    from iotune.errors import StoreError
    from iotune.store import Store
    from iotune.store.engine import normalize_url
    from iotune.stored import StoredStudy, StudyError

    deadline, told = time.monotonic() + wait_s, False
    while True:
        try:
            store = Store(db, create=False)
        except StoreError:
            url = normalize_url(db)
            if not (url.startswith("sqlite:///") and not Path(url[len("sqlite:///"):]).exists()) \
                    or time.monotonic() >= deadline:
                raise
        else:
            try:
                return store, StoredStudy.open(store, study)
            except StudyError:
                store.close()
                if time.monotonic() >= deadline:
                    raise
        if not told:
            terminal.info(f"waiting up to {wait_s:g} s for study {study} to be created by its controller")
            told = True
        time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))


def _summary(report) -> str:
    text = f"{report.completed} trials completed, {report.failed} failed"
    if report.dropped:
        text += f", {report.dropped} results dropped (another worker had taken the trial over)"
    return text


def _log_trial(terminal: Terminal):
    def log(trial, measurement) -> None:
        outcome = f"{measurement.io_seconds:.3f} s" if measurement.status == "COMPLETE" else measurement.error
        terminal.info(f"trial {trial.id} ({trial.config_key} repeat {trial.repeat}): {measurement.status} {outcome}")

    return log
