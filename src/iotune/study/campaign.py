"""The campaign loop: a sampler proposes, the store queues, workers measure, the sampler is told.

One process at a time is a study's *controller* (a lease in the store): it asks
the sampler for configurations, checks each one can be run (else records it
INVALID and tells the sampler so), queues its repeats as PENDING trials, lets
workers run them, and tells the sampler each configuration's outcome (the mean
objective over its COMPLETE repeats).

Repeats run in rounds: every configuration of a batch once, then every one
again, so that slow drift of a shared machine spreads over all configurations
(within a round, trials that share a testbed and an MPI world run together).
With adaptive repeats a configuration leaves the rounds once the t interval of
its mean time is narrow enough (paper 003, Sec. 6).

The store is the sampler's memory: a configuration whose repeats are already
finished is told from the store and not measured again, so a campaign killed
at any moment and run again with ``--resume`` replays its sampler (same seed,
same outcomes, same proposals) up to where it stopped, then goes on.  A trial
left RUNNING by a dead worker is claimed again; COMPLETE and INVALID trials are
never repeated, FAILED ones only with ``retry_failed``.

A sampler that ``remeasures`` (the transfer tuner) proposes runs: each
configuration it asks for is queued as one trial, the next repeat of that
configuration (the campaign's repeats and adaptive repeats do not apply: the
sampler decides what to run again), and it is told that run's outcome.  Up to
its ``batch`` runs are kept in flight: as soon as one ends, it is told and
asked for the free slot.  Before
its first proposal it is told every stored run it owns, in queue order; runs it
owns left queued or running (a campaign left mid-way) are waited for, not
queued again, then told.  Why it chose each run is kept in the study's
settings (``tuning_reasons``, by "<config key>#<repeat>").
"""

from __future__ import annotations

import json
import math
import random
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from iotune import shield
from iotune.errors import SpaceError, StoreError
from iotune.owner import owner_is_dead, process_owner
from iotune.samplers import Outcome, Sampler
from iotune.space import Configuration
from iotune.spec.mapping import benchmark_spec
from iotune.spec.storage import storage_config
from iotune.store.records import ROUNDS_SETTING, TrialRecord
from iotune.study.objective import Objective
from iotune.study.renewal import Renewal
from iotune.study.study import Study, StudyError
from iotune.study.worker import (
    GRACE_S,
    HEARTBEAT_S,
    Worker,
    stale_before,
    wait_for_trials,
)

FINISHED = ("COMPLETE", "INVALID")
POLL_S = 1.0
REASONS_KEY = "tuning_reasons"
"""Study setting: why a sampler chose each run, by "<config key>#<repeat>"."""
ROUNDS_KEY = ROUNDS_SETTING


@dataclass
class CampaignReport:
    """What one run of a campaign did."""

    configurations: int = 0
    invalid: int = 0
    already_done: int = 0
    queued: int = 0
    completed: int = 0
    failed: int = 0
    not_needed: int = 0
    saved_seconds: float = 0.0
    interrupted: bool = False
    seconds: float = 0.0
    testbeds_built: int = 0
    testbed_warnings: list[str] = field(default_factory=list)
    best: tuple[Configuration, Outcome] | None = None
    first_error: str | None = None


class Campaign:
    """Runs ``sampler`` over ``study``: queue, measure (``worker`` in this process, and any other workers), tell.

    ``repeats`` and ``adaptive`` (a :class:`~iotune.spec.Adaptive` or None)
    default to the spec's; ``objective`` is what the sampler minimises.
    ``worker`` None means every trial is run by workers elsewhere (a Slurm job
    array): the controller then only queues and waits.  ``on_batch(trials)``
    is called with the number of trials queued for each round; ``on_start()``
    once this process holds the study's controller lease, before the first
    proposal (an executor re-attaches to running workers there);
    ``on_wait()`` every ``poll_s`` seconds while the controller waits for
    trials run elsewhere (an executor starts its workers at the first call, so
    none of them sees a study without a controller or a campaign with nothing
    to run, and checks on them later; it may raise an IotuneError to end the
    campaign, e.g. when the workers' job ended).  With a sampler that
    ``remeasures``, ``on_run(trial, configuration, outcome)`` is called after
    it is told each run measured by this campaign (those left in flight by an
    earlier one included), and ``on_batch(runs)`` whenever runs are queued.
    """

    def __init__(self, study: Study, sampler: Sampler, worker: Worker | None, *, objective: Objective | None = None,
                 repeats: int | None = None, adaptive=None, retry_failed: bool = False,
                 grace_s: float = GRACE_S, poll_s: float = POLL_S, on_batch: Callable[[int], None] | None = None,
                 on_start: Callable[[], None] | None = None, on_wait: Callable[[], None] | None = None,
                 on_run: Callable | None = None):
        self.study = study
        self.store = study.store
        self.sampler = sampler
        self.worker = worker
        self.objective = objective or Objective(study.spec.campaign.objective)
        self.repeats = repeats or study.spec.campaign.repeats
        self.adaptive = study.spec.campaign.adaptive if adaptive is None else adaptive
        self.retry_failed = retry_failed
        self.grace_s = grace_s
        self.poll_s = poll_s
        self.on_batch = on_batch
        self.on_start = on_start
        self.on_wait = on_wait
        self._signals_since: int | None = None  # shield.taken() when run() began
        self.on_run = on_run
        self.owner = worker.owner if worker is not None else process_owner()
        self.report = CampaignReport()
        self._walls: list[float] = []
        self._round: set[tuple[str, int]] = set()

    def expected_trials(self) -> int | None:
        """Trials this campaign plans at most (designs and budgets), or None when the sampler cannot say."""
        if self.sampler.remeasures:  # its budget counts the runs it owns in the store: those finished are spent
            remaining = self.sampler.remaining
            spent = sum(t.state in ("COMPLETE", "FAILED") for _, t in self._owned_trials())
            return None if remaining is None else max(0, remaining - spent)
        designed = getattr(self.sampler, "configurations", None)
        count = len(designed) if designed is not None else self.sampler.budget
        if self.sampler.budget is not None and count is not None:
            count = min(count, self.sampler.budget)
        return None if count is None else count * self.repeats

    def run(self) -> CampaignReport:
        """Ask, measure and tell until the sampler is done; Ctrl-C ends it cleanly (``report.interrupted``)."""
        started = time.monotonic()
        self._signals_since = shield.taken()
        if self.worker is not None:
            self.worker.signals_since = self._signals_since
        self._acquire_lease()
        lease = Renewal(lambda: self.store.renew_controller(self.study.id, self.owner),
                        every=min(HEARTBEAT_S, self.grace_s / 4), name="iotune-lease")
        try:
            with lease:
                if self.on_start is not None:
                    self.on_start()
                if self.sampler.remeasures:
                    self._resume_runs()
                    self._keep_runs_in_flight()
                while not self.sampler.remeasures and (batch := self.sampler.ask(self.sampler.batch or 1_000_000)):
                    shield.check(self._signals_since)
                    runnable = [c for c in batch if self._check(c)]
                    self._measure(runnable)
                    self._tell(runnable)
        except KeyboardInterrupt:
            self.report.interrupted = True
        finally:
            self._count_round()
            self.store.release_controller(self.study.id, self.owner)
            if self.worker is not None:
                self.report.testbeds_built = self.worker.report.testbeds_built
                self.report.testbed_warnings = list(self.worker.report.testbed_warnings)
        self.report.best = self.sampler.best
        if self._walls:
            self.report.saved_seconds = self.report.not_needed * sum(self._walls) / len(self._walls)
        self.report.seconds = time.monotonic() - started
        return self.report

    def _acquire_lease(self) -> None:
        current = self.store.get_study(self.study.name).controller
        holder = self.store.acquire_controller(self.study.id, self.owner, stale_before=stale_before(self.grace_s),
                                               dead_owners=(current,) if owner_is_dead(current) else ())
        if holder is not None:
            raise StudyError(f"study {self.study.name!r} is being run by {holder} (a live process); wait for it, or "
                             f"add workers with `iotune worker --study {shlex.quote(self.study.name)}`")

    def _check(self, configuration: Configuration) -> bool:
        """Whether the benchmark (and testbed) can run ``configuration``; if not, record and tell INVALID."""
        spec = self.study.spec
        try:
            benchmark_spec(spec.space, configuration, spec.benchmark)
            if spec.uses_testbed:
                storage_config(spec.space, configuration, spec.storage)
        except SpaceError as error:
            try:
                self.store.mark_invalid(self.study.id, configuration.to_dict(), configuration.key,
                                        configuration.workload_key, str(error))
            except StoreError:
                pass  # it has COMPLETE trials from an earlier spec; it stays as measured
            self.sampler.tell(configuration, Outcome("INVALID"))
            self.report.invalid += 1
            return False
        return True

    def _measure(self, configurations: list[Configuration]) -> None:
        """Every repeat of ``configurations`` that the store does not hold as finished, in rounds."""
        if not configurations:
            return
        spec = self.study.spec
        items = {c.key: (c, benchmark_spec(spec.space, c, spec.benchmark)) for c in configurations}
        keys = list(items)
        for repeat in range(self.repeats):
            states = self.store.trial_states(self.study.id)
            finished = FINISHED + (() if self.retry_failed else ("FAILED",))
            times = self._complete_times(keys) if self.adaptive else {}
            queue = []
            for key, (configuration, benchmark) in items.items():
                state = states.get((key, repeat))
                if state in finished:
                    self.report.already_done += 1
                    continue
                if self._precise_enough(times.get(key, []), repeat):
                    self.report.not_needed += 1
                    continue
                queue.append((configuration, benchmark))
            if spec.campaign.shuffle:
                # each round in its own order: on a testbed rebuilt every round the n-th file created gets the same
                # inode, and CephFS places a file's objects by its inode, so rounds in one order repeat one placement
                random.Random(f"{spec.campaign.seed} round {repeat}").shuffle(queue)
            queue.sort(key=lambda item: (_storage_key(spec, item[0]), item[1].processes,
                                         tuple(sorted(item[1].env.items()))))
            queued = self.store.enqueue(self.study.id, [
                {"config": c.to_dict(), "config_key": c.key, "workload_key": c.workload_key, "repeat": repeat,
                 "benchmark": b.to_dict()} for c, b in queue], retry_failed=self.retry_failed)
            self.report.queued += queued
            if self.on_batch is not None and queue:
                self.on_batch(len(queue))
            self._round = {(c.key, repeat) for c, _ in queue}
            self._run_until_finished(self._round)
            self._count_round()

    def _resume_runs(self) -> None:
        """Tell a sampler that remeasures every stored run it owns, in queue order; wait first for those left
        queued or running by an earlier campaign (they are not queued again)."""
        owned = self._owned_trials()
        waiting = {(t.config_key, t.repeat) for _, t in owned if t.state in ("PENDING", "RUNNING")}
        if waiting:
            self._round = set(waiting)
            self._run_until_finished(waiting)
            self._count_round()
            owned = self._owned_trials()
        for configuration, trial in owned:
            outcome = self.objective.outcome([trial])
            self.sampler.tell(configuration, outcome)
            if (trial.config_key, trial.repeat) not in waiting:
                self.report.already_done += 1
                continue
            self.report.configurations += 1
            if self.on_run is not None:
                self.on_run(trial, configuration, outcome)

    def _owned_trials(self) -> list[tuple[Configuration, TrialRecord]]:
        """(configuration, trial) of each stored trial the sampler owns, in queue order."""
        space = self.study.space
        out = []
        for trial in sorted(self.study.trials(), key=lambda t: (t.seq is None, t.seq or 0, t.id)):
            try:
                configuration = space.configuration(trial.config)
            except SpaceError:
                continue  # stored under an older spec: not a configuration of this space
            if self.sampler.owns(configuration):
                out.append((configuration, trial))
        return out

    def _keep_runs_in_flight(self) -> None:
        """Keep up to ``sampler.batch`` runs of a sampler that remeasures in flight: ask for the free slots, queue
        each run as its configuration's next repeat, and as soon as one or more have finished, tell them (in
        queue order) and ask again; done when the sampler proposes nothing and nothing is in flight."""
        width = self.sampler.batch or 1
        flight: list[tuple[Configuration, int]] = []
        while True:
            free = width - len(flight)
            batch = self.sampler.ask(free) if free > 0 else []
            runnable = [c for c in batch if self._check(c)]
            flight += self._queue_runs(runnable)
            if len(runnable) < len(batch):
                continue  # some cannot run (told INVALID, never proposed again): ask again for their slots
            if not flight:
                return
            finished = self._wait_for_any(flight)
            for configuration, repeat in flight:
                trial = finished.get((configuration.key, repeat))
                if trial is None:
                    continue
                outcome = self.objective.outcome([trial])
                self.sampler.tell(configuration, outcome)
                self.report.configurations += 1
                self.report.completed += trial.state == "COMPLETE"
                self.report.failed += trial.state == "FAILED"
                if self.on_run is not None:
                    self.on_run(trial, configuration, outcome)
            flight = [(c, r) for c, r in flight if (c.key, r) not in finished]

    def _queue_runs(self, configurations: list[Configuration]) -> list[tuple[Configuration, int]]:
        """One more run of each configuration (its next repeat) queued; (configuration, repeat) of each."""
        if not configurations:
            return []
        spec = self.study.spec
        following: dict[str, int] = {}
        for key, repeat in self.store.trial_states(self.study.id):
            following[key] = max(following.get(key, 0), repeat + 1)
        runs = [(c, benchmark_spec(spec.space, c, spec.benchmark), following.get(c.key, 0)) for c in configurations]
        queue = sorted(runs, key=lambda item: (_storage_key(spec, item[0]), item[1].processes,
                                               tuple(sorted(item[1].env.items()))))
        self.report.queued += self.store.enqueue(self.study.id, [
            {"config": c.to_dict(), "config_key": c.key, "workload_key": c.workload_key, "repeat": repeat,
             "benchmark": b.to_dict()} for c, b, repeat in queue])
        round_of = getattr(self.sampler, "round_of", lambda configuration: None)
        self._record(REASONS_KEY, {f"{c.key}#{repeat}": self.sampler.reason(c) for c, _, repeat in runs})
        self._record(ROUNDS_KEY, {f"{c.key}#{repeat}": round_of(c) for c, _, repeat in runs})
        if self.on_batch is not None:
            self.on_batch(len(runs))
        return [(c, repeat) for c, _, repeat in runs]

    def _wait_for_any(self, flight: list[tuple[Configuration, int]]) -> dict[tuple[str, int], TrialRecord]:
        """Until at least one run in ``flight`` has finished: run queued trials here with the worker, if any,
        else wait for workers elsewhere (``on_wait`` at every poll); the finished ones by (key, repeat)."""
        wanted = {(c.key, r) for c, r in flight}
        keys = sorted({key for key, _ in wanted})
        while True:
            ran = self.worker.run_one() if self.worker is not None else False
            finished = {(t.config_key, t.repeat): t for t in self.store.trials(self.study.id, config_keys=keys)
                        if (t.config_key, t.repeat) in wanted and t.state in ("COMPLETE", "FAILED", "INVALID")}
            if finished:
                return finished
            if ran:
                continue
            self._waiting()
            time.sleep(self.poll_s)

    def _waiting(self) -> None:
        """At every poll while workers elsewhere run the trials: ``on_wait``, after ending the wait if a signal
        was taken whose KeyboardInterrupt was lost (:func:`iotune.shield.check`)."""
        if self._signals_since is not None:
            shield.check(self._signals_since)
        if self.on_wait is not None:
            self.on_wait()

    def _record(self, setting: str, by_run: dict) -> None:
        """Keep why each run was chosen (or its race round) in the study's settings (the controller is the only
        writer)."""
        by_run = {run: value for run, value in by_run.items() if value is not None and value != ""}
        if not by_run:
            return
        settings = self.store.get_study(self.study.name).settings or {}
        self.store.update_settings(self.study.id, {setting: {**(settings.get(setting) or {}), **by_run}})

    def _run_until_finished(self, wanted: set[tuple[str, int]]) -> None:
        """Run queued trials here (when this process has a worker) until every wanted trial is finished,
        whoever runs them; ``on_wait`` is called at every poll while other workers run them."""
        wait_for_trials(self.store, self.study.id, self.worker, wanted, self.poll_s, on_wait=self._waiting)

    def _count_round(self) -> None:
        """Add the trials of the current round that are finished to the report (by whichever worker ran them)."""
        if not self._round:
            return
        states = self.store.trial_states(self.study.id)
        finished = [states.get(item) for item in self._round]
        self.report.completed += finished.count("COMPLETE")
        self.report.failed += finished.count("FAILED")
        self._round = set()

    def _complete_times(self, keys: list[str]) -> dict[str, list[float]]:
        times: dict[str, list[float]] = {}
        for trial in sorted(self.store.trials(self.study.id, state="COMPLETE", config_keys=keys),
                            key=lambda t: t.repeat):
            times.setdefault(trial.config_key, []).append(trial.io_seconds)
            if trial.wall_seconds:
                self._walls.append(trial.wall_seconds)
        return times

    def _precise_enough(self, samples: list[float], repeat: int) -> bool:
        """With adaptive repeats: the mean time of a configuration is known well enough to stop repeating it, by the
        interval every answer states of it (its geometric mean's, :func:`iotune.variability.confidence.
        mean_interval`, from its own spread: the same rule as the race's ``--precision``)."""
        adaptive = self.adaptive
        if adaptive is None or repeat < adaptive.min_repeats or len(samples) < adaptive.min_repeats:
            return False
        from iotune.variability.confidence import mean_interval, noise_from

        runs = [value for value in samples if value is not None and value > 0]
        if len(runs) < 2:
            return False
        interval = mean_interval(runs, noise_from([runs], (0.0, 0)), adaptive.confidence)
        return math.log(interval.high / interval.low) / 2 <= math.log1p(adaptive.rel_half_width)

    def _tell(self, configurations: list[Configuration]) -> None:
        """Tell the sampler each configuration's outcome, in ask order (one read of the store for the batch)."""
        if not configurations:
            return
        found: dict[str, list] = {}
        for trial in self.store.trials(self.study.id, config_keys=[c.key for c in configurations]):
            found.setdefault(trial.config_key, []).append(trial)
        for configuration in configurations:
            self.sampler.tell(configuration, self.objective.outcome(found.get(configuration.key, [])))
            self.report.configurations += 1


def _storage_key(spec, configuration: Configuration) -> str:
    config = storage_config(spec.space, configuration, spec.storage) if spec.uses_testbed else None
    return json.dumps(config.to_dict(), sort_keys=True) if config is not None else ""


