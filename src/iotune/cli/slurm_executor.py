"""``iotune bench --executor slurm``: the controller runs here, its workers in a Slurm job array.

The controller holds the study's lease, asks the sampler (``workers``
configurations at a time), queues trials in the shared store and tells the
outcomes; the job's ``iotune worker`` tasks claim, run and commit the trials.
The progress bar follows the store.  Ctrl-C leaves the campaign: the workers
finish what is queued and leave; ``iotune status --study S --follow`` watches
them and ``--resume`` re-attaches to the job while it runs (else submits a new
one).
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from iotune.cli.common import run_campaign
from iotune.cli.terminal import Terminal
from iotune.errors import IotuneError
from iotune.runners.registry import DEFAULT as DEFAULT_RUNNER
from iotune.runners.registry import for_worker
from iotune.study.slurm import SlurmJob, active, cancel, check_clients, job_name, job_script, submit, task_states

EMPTY_POLLS_PER_S = 200.0
"""How often, in all, idle workers may ask the store for a trial (see docs/benchmarks.md for what it costs)."""


class SlurmExecutor:
    """Starts and watches one campaign's workers (a :class:`SlurmJob`) through the campaign's ``on_start`` and
    ``on_wait`` hooks, which run while the campaign holds the study's lease (so no worker sees the study
    without a controller before the first trial is queued).

    The job runs ``worker_command`` with ``env`` (which carries the store's
    URL); scripts and the workers' output go to ``log_dir``.  When the job has
    ended while trials are still queued, the campaign ends with a StudyError
    saying how to continue, except when every task ended COMPLETED (workers
    leave on their own when they find no work and no controller, which can
    race with a controller that just re-attached): then a new job is submitted,
    at most ``max_resubmits`` times.
    """

    check_every_s = 3.0
    max_resubmits = 3

    def __init__(self, store, study: str, job: SlurmJob, worker_command: list[str], env: dict[str, str],
                 log_dir: Path, terminal: Terminal, resume: bool = False):
        self.store, self.study, self.job, self.command, self.env = store, study, job, worker_command, env
        self.log_dir, self.terminal, self.resume = log_dir, terminal, resume
        self.job_id: str | None = None
        self.submitted: list[str] = []
        self._checked = 0.0

    def start(self) -> None:
        """Once the campaign holds the study: when resuming, re-attach to the study's job if it still runs."""
        previous = (self.store.get_study(self.study).settings or {}).get("executor") or {}
        if self.resume and previous.get("kind") == "slurm":
            tasks = active(task_states(str(previous["job"])))
            if tasks:
                self.job_id = str(previous["job"])
                self.terminal.info(f"re-attached to Slurm job {self.job_id} ({len(tasks)} worker tasks running or "
                                   "pending)")

    def _submit(self) -> None:
        stamp = datetime.now(timezone.utc)
        script = self.log_dir / f"{job_name(self.study)}-{stamp.strftime('%Y%m%dT%H%M%S%f')}.sbatch"
        script.write_text(job_script(self.job, self.study, self.command, self.log_dir))
        self.job_id = submit(script, self.env)
        self.submitted.append(self.job_id)
        self.store.update_settings(self.study, {"executor": {
            "kind": "slurm", "job": self.job_id, "workers": self.job.workers,
            "nodes_per_trial": self.job.nodes_per_trial,
            "submitted_at": stamp.isoformat(timespec="seconds"), "script": str(script), "log_dir": str(self.log_dir)}})
        self.terminal.info(f"submitted {self.job.workers} workers as Slurm job {self.job_id} (script {script}; "
                           f"worker logs in {self.log_dir})")

    def wait(self) -> None:
        """While the campaign waits for trials: submit the job the first time (so that a campaign with nothing
        left to measure submits none), then check every few seconds that it has tasks that run or will."""
        if self.job_id is None:
            self._submit()
            self._checked = time.monotonic()
            return
        if time.monotonic() - self._checked < self.check_every_s:
            return
        self._checked = time.monotonic()
        states = task_states(self.job_id)
        if active(states):
            return
        ended = sorted({state for state, _ in states.values()})
        if states and ended == ["COMPLETED"] and len(self.submitted) <= self.max_resubmits:
            self.terminal.warn(f"the workers of Slurm job {self.job_id} left while trials were queued; "
                               "submitting new ones")
            self._submit()
            return
        from iotune.study import StudyError

        counts = self.store.queue_counts(self.study)
        left = counts.get("PENDING", 0) + counts.get("RUNNING", 0)
        raise StudyError(f"Slurm job {self.job_id} ended ({', '.join(ended) or 'no longer known to Slurm'}) with "
                         f"{left} trials queued or running; run the same command with --resume to submit new workers "
                         "and continue (finished trials are kept)")

    def finish(self) -> None:
        """At the end of the campaign: cancel tasks that never started (running ones leave by themselves)."""
        if self.job_id is not None:
            cancel(self.job_id, pending_only=True)


def shared_store_url(db: str | None) -> str:
    """The store's URL for workers on other nodes (PostgreSQL; SQLite is refused), once Slurm's clients are
    known to be here."""
    from iotune.store.engine import normalize_url

    url = normalize_url(db if db is not None else os.environ.get("IOTUNE_DB"))
    if url.startswith("sqlite"):
        raise IotuneError("--executor slurm needs a store every node reaches: a PostgreSQL URL (--db "
                          "postgresql+psycopg://user@host/db, after pip install 'iotune[postgres]'); SQLite's locks "
                          "do not hold across hosts")
    check_clients()
    return url


def worker_command(spec, study: str, job: SlurmJob, *, runner: str = DEFAULT_RUNNER, timeout: float = 600.0,
                   scratch: Path | None = None, mpiexec: str | None = None, replay_scale: float = 1.0,
                   grace: float | None = None) -> list[str]:
    """The ``iotune worker`` command each task of the job runs for ``study`` (of ``spec``)."""
    # An idle worker asks the store at most every poll_max seconds: together the workers ask about
    # EMPTY_POLLS_PER_S times a second, and a small campaign's workers wake within 0.1 s of a new round.
    poll_max = max(0.1, job.workers / EMPTY_POLLS_PER_S)
    command = [sys.executable, "-m", "iotune", "worker", "--study", study, "--timeout", str(timeout),
               "--poll-max", f"{poll_max:g}"]
    command += ["--runner", for_worker(spec, runner)]
    if replay_scale != 1.0:
        command += ["--replay-scale", str(replay_scale)]
    if scratch is not None:
        command += ["--scratch", str(Path(scratch).absolute())]
    if mpiexec is not None:
        command += ["--mpiexec", mpiexec]
    if grace is not None:
        command += ["--grace", str(grace)]
    return command


def log_directory(log_dir: Path | None) -> Path:
    """Where the job's scripts and the workers' output go (default: ./iotune-slurm), created."""
    log_dir = Path(log_dir or Path.cwd() / "iotune-slurm").absolute()
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise IotuneError(f"cannot use {log_dir} for the workers' scripts and logs: {error.strerror}") from None
    return log_dir


def measure_on_slurm(spec, study: str, db: str | None, job: SlurmJob, *, resume: bool = False,
                     retry_failed: bool = False, scratch: Path | None = None, runner: str = DEFAULT_RUNNER,
                     timeout: float = 600.0, mpiexec: str | None = None, replay_scale: float = 1.0,
                     grace: float | None = None, log_dir: Path | None = None, terminal: Terminal | None = None):
    """Run ``spec``'s campaign in ``study`` with ``job.workers`` Slurm workers; returns the campaign's report."""
    from iotune.store import Store
    from iotune.study.measure import prepare

    terminal = terminal or Terminal()
    url = shared_store_url(db)
    command = worker_command(spec, study, job, runner=runner, timeout=timeout, scratch=scratch, mpiexec=mpiexec,
                             replay_scale=replay_scale, grace=grace)
    log_dir = log_directory(log_dir)
    env = {**os.environ, "IOTUNE_DB": url}
    with Store(url) as store:
        executor = SlurmExecutor(store, study, job, command, env, log_dir, terminal, resume=resume)
        campaign = prepare(store, spec, study, None, Path(scratch or "."), resume=resume, retry_failed=retry_failed,
                           workers=job.workers, on_start=executor.start, on_wait=executor.wait, poll_s=0.25)
        if grace is not None:
            campaign.grace_s = grace
        terminal.info(f"study {study}: controller here, {job.workers} workers in Slurm, store {store!r}")
        try:
            report = run_campaign(campaign, terminal)
        except KeyboardInterrupt:
            if executor.job_id is not None:
                terminal.info(f"left the campaign: Slurm job {executor.job_id} finishes the trials already queued, "
                              "then its workers leave. Watch: "
                              f"iotune status --study {shlex.quote(study)} --follow; continue "
                              "proposing: the same command with --resume (re-attaches to the job while it runs)")
            raise
        executor.finish()
        return report
