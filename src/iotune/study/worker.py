"""A worker: claims the next trial of a study's queue, runs it, commits it, and repeats.

One worker runs in the process of ``iotune bench`` (the local executor); more
can run anywhere that reaches the store (``iotune worker``, Slurm job arrays).
While a trial runs, a thread renews the claim's heartbeat; a trial whose owner
provably died on this host, or whose heartbeat is older than the grace period,
is claimed again by the next worker that asks.  A worker interrupted (Ctrl-C,
SIGTERM) gives its trial back to the queue unfinished.

Trials of a spec that varies storage run on testbeds: the worker builds the
trial's storage configuration through its ``storage`` provider, keeps it while
the next trials share it, and tears it down before building another and when
it closes.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from iotune import shield
from iotune.errors import IotuneError, StoreError
from iotune.owner import owner_is_dead, process_owner
from iotune.records import BenchmarkSpec, Measurement
from iotune.spec.storage import storage_config
from iotune.store.identity import StoreMovedError
from iotune.study.renewal import Renewal

HEARTBEAT_S = 10.0
"""Seconds between heartbeats of a running trial."""
GRACE_S = 120.0
"""A RUNNING trial whose heartbeat is older than this is taken over by another worker."""


def stale_before(grace_s: float) -> str:
    """ISO 8601 UTC time ``grace_s`` seconds ago: heartbeats older than this are stale."""
    return (datetime.now(timezone.utc) - timedelta(seconds=grace_s)).isoformat(timespec="microseconds")


def dead_owners(store, study) -> tuple[str, ...]:
    """Owners of the study's RUNNING trials that provably no longer run on this host."""
    return tuple(owner for owner in store.running_owners(study) if owner_is_dead(owner))


def controller_gone(store, study, grace_s: float = GRACE_S) -> bool:
    """True when no live process holds the study's controller lease: nobody will queue more trials.

    The lease is gone when it is free, when its holder provably died on this
    host, or when it was not renewed for ``grace_s`` seconds.
    """
    record = store.get_study(study.name)
    if record is None or record.controller is None or owner_is_dead(record.controller):
        return True
    return (record.controller_at or "") < stale_before(grace_s)


@dataclass
class WorkerReport:
    """What a worker did: trials completed and failed, results dropped because another worker took the trial over."""

    completed: int = 0
    failed: int = 0
    dropped: int = 0
    testbeds_built: int = 0
    testbed_warnings: list[str] = field(default_factory=list)
    stopped: str = ""


TrialCallback = Callable[[object, Measurement], None]


class Worker:
    """Runs a study's queued trials with ``runner`` in ``scratch`` (or on testbeds from ``storage``)."""

    def __init__(self, study, runner, scratch: Path, *, storage=None, platform: dict | None = None,
                 owner: str | None = None, heartbeat_s: float = HEARTBEAT_S, grace_s: float = GRACE_S,
                 on_trial: TrialCallback | None = None, extra: dict | None = None):
        self.study = study
        self.store = study.store
        self.runner = runner
        self.scratch = Path(scratch)
        self.storage = storage
        self.platform = platform
        self.owner = owner or process_owner()
        self.heartbeat_s = heartbeat_s
        self.grace_s = grace_s
        self.on_trial = on_trial
        self.extra = dict(extra or {})
        self.report = WorkerReport()
        self._platform_ids: dict[str, int] = {}
        self._session = None
        self._session_key: str | None = None
        self.signals_since: int | None = None  # a shield.taken() mark: a signal after it ends the next run_one

    def run_one(self) -> bool:
        """Claim and run one trial; False when nothing is left to claim.  With ``signals_since`` set, a signal
        taken since whose KeyboardInterrupt was lost on the way (:func:`iotune.shield.check`) raises it here."""
        if self.signals_since is not None:
            shield.check(self.signals_since)
        trial = self.store.claim(self.study.id, self.owner, dead_owners=dead_owners(self.store, self.study.id),
                                 stale_before=stale_before(self.grace_s))
        if trial is None:
            return False
        try:
            measurement = self._measure(trial)
        except BaseException:
            self.store.release(trial.id, self.owner)
            raise
        try:
            self.store.finish_trial(trial.id, measurement, owner=self.owner)
        except StoreMovedError:
            raise
        except StoreError:
            self.report.dropped += 1  # another worker took the trial over while this one was presumed dead
            return True
        if measurement.status == "COMPLETE":
            self.report.completed += 1
        else:
            self.report.failed += 1
        if self.on_trial is not None:
            self.on_trial(trial, measurement)
        return True

    def drain(self, stop: Callable[[], bool] | None = None) -> None:
        """Run trials until the queue has nothing claimable (or ``stop()`` says so)."""
        while (stop is None or not stop()) and self.run_one():
            pass

    def serve(self, *, max_trials: int | None = None, idle_exit: float | None = None, poll_s: float = 0.05,
              poll_max_s: float = 2.0) -> str:
        """Run trials as they are queued until there is nothing left to do; return why it stopped.

        Stops after ``max_trials`` trials; when nothing is claimable and no
        live controller holds the study (:func:`controller_gone`: nobody will
        queue more); or after ``idle_exit`` seconds without a claimable trial.
        While idle it asks the store again after ``poll_s`` seconds, doubling
        the pause up to ``poll_max_s`` (with +-20% jitter, so that many workers
        do not ask in step).  A store that cannot be reached is asked again for
        up to the grace period before the error is raised.
        """
        ran, idle_since, pause, unreachable_since = 0, None, poll_s, None
        self.signals_since = shield.taken()
        while max_trials is None or ran < max_trials:
            try:
                claimed = self.run_one()
                gone = not claimed and controller_gone(self.store, self.study, self.grace_s)
                unreachable_since = None
            except StoreMovedError:
                raise
            except StoreError:
                unreachable_since = unreachable_since or time.monotonic()
                if time.monotonic() - unreachable_since > self.grace_s:
                    raise
                claimed, gone = False, False
            if claimed:
                ran, idle_since, pause = ran + 1, None, poll_s
                continue
            if gone:
                self.report.stopped = "the queue is empty and the study has no controller"
                return self.report.stopped
            idle_since = idle_since or time.monotonic()
            if idle_exit is not None and time.monotonic() - idle_since >= idle_exit:
                self.report.stopped = f"nothing to run for {idle_exit:g} s"
                return self.report.stopped
            time.sleep(pause * random.uniform(0.8, 1.2))
            pause = min(2 * pause, poll_max_s)
        self.report.stopped = f"ran {max_trials} trials (--max-trials)"
        return self.report.stopped

    def _measure(self, trial) -> Measurement:
        spec = BenchmarkSpec.from_dict(trial.benchmark) if trial.benchmark else None
        if spec is None:
            return Measurement.failed("the trial records no benchmark to run")
        runner, scratch, storage = self.runner, self.scratch, None
        if self.study.spec.uses_testbed:
            configuration = self.study.space.configuration(trial.config)
            storage = storage_config(self.study.space, configuration, self.study.spec.storage)
            runner, scratch = self._testbed(storage)
        self._set_platform(trial, storage)
        beat = Renewal(lambda: self.store.heartbeat(trial.id, self.owner), self.heartbeat_s, "iotune-heartbeat")
        before = machine_load()
        with beat:
            by_configuration = getattr(runner, "run_configuration", None)  # a runner that needs the values
            measurement = (by_configuration(trial.config, spec, scratch) if by_configuration
                           else runner.run(spec, scratch))
        measurement.extra.setdefault("conditions", {**before, "load_after": machine_load()["load_before"]})
        if storage is not None:
            measurement.extra["storage"] = storage.to_dict()
        measurement.extra.update(self.extra)
        return measurement

    def _set_platform(self, trial, storage) -> None:
        if not self.platform:
            return
        info = dict(self.platform) if storage is None else {**self.platform, "fs_type": storage.fs}
        key = json.dumps(info, sort_keys=True, default=str)
        if key not in self._platform_ids:
            self._platform_ids[key] = self.store.register_platform(info)
        self.store.set_trial_platform(trial.id, self._platform_ids[key])

    def _testbed(self, storage):
        if self.storage is None:
            raise IotuneError("this study's spec builds storage on testbeds; run it as root where loop devices and "
                              "the blkio cgroup work")
        key = json.dumps(storage.to_dict(), sort_keys=True)
        if self._session is None or self._session_key != key:
            self._close_session()
            self._session, self._session_key = self.storage.open(storage), key
            self.report.testbeds_built += 1
        return self._session.runner, self._session.scratch

    def _close_session(self) -> None:
        if self._session is not None:
            session, self._session, self._session_key = self._session, None, None
            self.report.testbed_warnings += session.close()

    def close(self) -> None:
        """Tear down the current testbed, if any (the caller closes its own runner)."""
        self._close_session()


def wait_for_trials(store, study_id: int, worker: Worker | None, wanted: set[tuple[str, int]],
                    poll_s: float = 1.0, on_wait: Callable[[], None] | None = None) -> None:
    """Run queued trials here (with ``worker``) until every wanted (configuration key, repeat) is finished.

    Other workers may hold some of them: then this waits, draining again in
    between, so a trial whose owner died is taken over here; ``on_wait()`` is
    called at every poll (it may raise to stop waiting).
    """
    while True:
        if worker is not None:
            before = worker.report.completed + worker.report.failed
            worker.drain()
            if worker.report.completed + worker.report.failed > before:
                continue
        if _finished(store, study_id, wanted):
            return
        if on_wait is not None:
            on_wait()
        time.sleep(poll_s)


def _finished(store, study_id: int, wanted: set[tuple[str, int]]) -> bool:
    counts = store.queue_counts(study_id)
    if counts.get("PENDING") or counts.get("RUNNING"):
        return False  # cheap while trials are queued or running: the full check reads every trial's state
    states = store.trial_states(study_id)
    return all(states.get(item) in ("COMPLETE", "FAILED", "INVALID") for item in wanted)


def machine_load() -> dict:
    """The conditions a run is measured under: this host's 1-minute load average and its cores (the load of the
    node the worker runs on; a run on other nodes of a cluster may see another)."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return {"load_before": None, "cores": os.cpu_count()}
    return {"load_before": round(load, 2), "cores": os.cpu_count()}
