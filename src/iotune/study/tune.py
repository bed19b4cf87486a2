"""The budgeted tuner: the best configuration of one workload within a few real runs, and how sure it is.

``iotune tune`` measures through the same queue and workers as a campaign (a run
is one trial), one configuration at a time here, or ``workers`` at once by
workers elsewhere (a Slurm job array), choosing each next run from everything
known (:class:`iotune.transfer.TransferTuner`):

- the *prior*: every other workload's runs in the store (the study itself and
  any ``prior_studies``), paper 000's shared database taken further;
- the target's own runs so far, each one as it comes (noisy: a close contender
  may be run again rather than declared).

The engine keeps no state but the runs, so a tuning killed at any moment and
run again continues where it stopped: the runs are read back from the store.
The budget counts the target workload's runs in the study, so running the same
tuning twice spends it once.  The default configuration is measured first (it
is the baseline a gain is stated against).

With several workers the tuner keeps that many runs in flight: whenever one
finishes it proposes for the free slots, telling the engine the runs in flight
as pending (see :meth:`Tuner._propose`), so no candidate runs twice at once.
What it proposes depends only on the runs finished and in flight, both read
from the store (the only channel to the workers); runs in flight when a tuning
was left are waited for, not queued again, so the budget is spent once.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from iotune.errors import IotuneError, SpaceError
from iotune.owner import owner_is_dead, process_owner
from iotune.space import Configuration
from iotune.spec.mapping import benchmark_spec
from iotune.study.objective import Objective
from iotune.study.renewal import Renewal
from iotune.study.study import Study, StudyError
from iotune.study.worker import GRACE_S, HEARTBEAT_S, Worker, stale_before
from iotune.variability.confidence import Interval, Noise, estimate_noise, mean_interval, ratio_interval, separated

MAX_CANDIDATES = 50_000
REASONS_KEY = "tuning_reasons"
"""Study setting: why each run of a tuning was chosen, by "<config key>#<repeat>"."""
POLL_S = 1.0
"""Seconds between looks at the store while runs are in flight elsewhere."""


class TuneError(IotuneError, ValueError):
    """A tuning cannot start: no candidate, a workload the space cannot take, a budget of nothing."""


@dataclass
class Step:
    """One run of a tuning: which configuration, why, and what it gave (None: failed)."""

    run: int
    configuration: Configuration
    reason: str
    value: float | None


@dataclass
class Estimate:
    """A configuration's measured mean objective, its runs and a 95% interval of the mean (log-normal)."""

    configuration: Configuration
    mean: float
    runs: int
    low: float
    high: float


@dataclass
class FrontPoint:
    """A measured configuration on the time-cost front: no other measured one is both faster and cheaper.
    ``time`` in seconds and ``cost`` in the pricing currency, each the geometric mean of its runs."""

    configuration: Configuration
    time: float
    cost: float
    runs: int


@dataclass
class TuneResult:
    """What a tuning found: the best configuration, the default, the gain with an interval, the history."""

    objective: str
    budget: int
    runs: int
    best: Estimate | None
    default: Estimate | None
    gain: float | None = None
    gain_low: float | None = None
    gain_high: float | None = None
    runner_up: Estimate | None = None
    separated: bool | None = None
    noise: str = ""
    steps: list[Step] = field(default_factory=list)
    candidates: int = 0
    prior_workloads: int = 0
    notes: list[str] = field(default_factory=list)
    front: list[FrontPoint] = field(default_factory=list)


def workload_configurations(space, workload: dict, limit: int = MAX_CANDIDATES, seed: int = 0) -> list[Configuration]:
    """Every valid configuration of ``space`` with its workload parameters at ``workload``'s values.

    A space with more than ``limit`` such configurations gives a seeded random
    ``limit`` of them (said in the notes of the result).
    """
    names = [p.name for p in space.workload_parameters]
    missing = [n for n in names if n not in workload and len(space.parameter(n).levels) > 1]
    if missing:
        raise TuneError("give the workload's " + ", ".join(
            f"{n} (levels: {', '.join(map(space.parameter(n).format, space.parameter(n).levels))})"
            for n in missing) + " with --workload")
    fixed = {n: workload.get(n, space.parameter(n).default) for n in names}
    system = [p for p in space.system_parameters]
    total = math.prod(len(p.levels) for p in system)
    rng = np.random.default_rng(seed)
    out: dict[str, Configuration] = {}
    if total <= limit * 4:
        import itertools

        for combo in itertools.product(*(p.levels for p in system)):
            try:
                configuration = space.configuration({**fixed, **dict(zip((p.name for p in system), combo))})
            except SpaceError:
                continue
            out.setdefault(configuration.key, configuration)
    else:
        for _ in range(limit * 20):
            if len(out) >= limit:
                break
            values = {p.name: p.levels[int(rng.integers(len(p.levels)))] for p in system}
            try:
                configuration = space.configuration({**fixed, **values})
            except SpaceError:
                continue
            out.setdefault(configuration.key, configuration)
    configurations = list(out.values())
    if len(configurations) > limit:
        keep = rng.choice(len(configurations), size=limit, replace=False)
        configurations = [configurations[i] for i in sorted(keep)]
    return configurations


def features(space, configurations, role: str) -> np.ndarray:
    """Encoded columns of the parameters of ``role`` ("system" or "workload") for ``configurations``."""
    encoder = space.encoder("onehot")
    columns = encoder.columns_of(role)
    return encoder.transform(configurations)[:, columns] if len(configurations) else np.zeros((0, len(columns)))


class Tuner:
    """Tunes ``workload`` in ``study`` within ``budget`` runs; ``worker`` runs the trials here (None: elsewhere).

    ``prior_studies`` add other studies' runs (same parameter names) to the
    prior; ``on_step(step, result_so_far)`` is called after every run.

    ``workers``: runs kept in flight at once (trials run by workers elsewhere,
    e.g. a Slurm job array, that claim them from the store).  While the tuner
    runs it holds the study's controller lease, as a campaign does, so that
    idle workers wait for its next proposals instead of leaving.
    ``on_start()`` is called once the lease is held, ``on_wait()`` every
    ``poll_s`` seconds while it waits for an outcome (an executor starts and
    checks its workers there, and may raise to end the tuning), and
    ``on_queue(configuration, reason, in_flight)`` when a run is queued.
    """

    def __init__(self, study: Study, worker: Worker | None, workload: dict, budget: int, *,
                 objective: Objective | None = None, prior_studies: tuple[Study, ...] = (), seed: int = 0,
                 on_step: Callable[[Step, TuneResult], None] | None = None, engine_options: dict | None = None,
                 workers: int = 1, on_start: Callable[[], None] | None = None,
                 on_wait: Callable[[], None] | None = None,
                 on_queue: Callable[[Configuration, str, int], None] | None = None,
                 poll_s: float = POLL_S, grace_s: float = GRACE_S):
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise TuneError(f"the budget is a number of runs >= 1, got {budget!r}")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise TuneError(f"workers is a number of runs in flight >= 1, got {workers!r}")
        self.study = study
        self.store = study.store
        self.space = study.space
        self.worker = worker
        self.workload = dict(workload)
        self.budget = budget
        self.objective = objective or Objective(study.spec.campaign.objective)
        self.prior_studies = tuple(prior_studies)
        self.seed = seed
        self.on_step = on_step
        self.engine_options = dict(engine_options or {})
        self.workers = workers
        self.on_start, self.on_wait, self.on_queue = on_start, on_wait, on_queue
        self.poll_s, self.grace_s = poll_s, grace_s
        self.owner = worker.owner if worker is not None else process_owner()
        self.candidates = workload_configurations(self.space, self.workload, seed=seed)
        if not self.candidates:
            raise TuneError(f"no valid configuration for workload {self.workload} in space {self.space.name!r}")
        self.index = {c.key: i for i, c in enumerate(self.candidates)}
        self.default = self.space.configuration({**self.workload})
        self.workload_key = self.default.workload_key

    def run(self) -> TuneResult:
        """Run until the budget is spent or the engine has nothing worth running; returns the result.

        Holds the study's controller lease meanwhile (StudyError when a live
        process holds it).  Runs already in flight in the store (a tuning that
        was left or died) are waited for, never queued again.
        """
        from iotune.transfer import TransferTuner

        prior, labels = self._prior()
        options = {"price": self.prices(), **self.engine_options}
        engine = TransferTuner(features(self.space, self.candidates, "system"), prior,
                               features(self.space, [self.default], "workload")[0], seed=self.seed, **options)
        result = TuneResult(self.objective.name, self.budget, 0, None, None, candidates=len(self.candidates),
                            prior_workloads=len(set(labels)))
        self._acquire_lease()
        try:
            with Renewal(lambda: self.store.renew_controller(self.study.id, self.owner),
                         every=min(HEARTBEAT_S, self.grace_s / 4), name="iotune-lease"):
                if self.on_start is not None:
                    self.on_start()
                self._loop(engine, result)
        finally:
            self.store.release_controller(self.study.id, self.owner)
        result = self._summarise(result, engine, self._observations())
        result.front = self._front() if self.objective.name == "cost" else []
        return result

    def _loop(self, engine, result: TuneResult) -> None:
        """Keep up to ``workers`` runs in flight until the budget is spent; make a Step of each outcome."""
        reasons: dict[tuple[str, int], str] = {}
        watching: list[tuple[str, int]] = []  # the runs in flight at the last look, in queue order
        while True:
            done, flight, invalid, finished = self._state()
            newly = [finished[item] for item in watching if item in finished and finished[item].state != "INVALID"]
            if newly:
                so_far = self._summarise(result, engine, done) if self.on_step is not None else None
                for k, trial in enumerate(newly):
                    value = self.objective.run_value(trial) if trial.state == "COMPLETE" and trial.phases else None
                    reason = reasons.pop((trial.config_key, trial.repeat), "queued before this tuner (re)started")
                    step = Step(len(done) - len(newly) + k + 1, self.candidates[self.index[trial.config_key]],
                                reason, value)
                    result.steps.append(step)
                    if self.on_step is not None:
                        self.on_step(step, so_far)
            result.runs = len(done)
            free = min(self.workers - len(flight), self.budget - len(done) - len(flight))
            picks = self._propose(engine, done, invalid, [i for i, _ in flight], free) if free > 0 else []
            for pick, reason in picks:
                queued = self._queue(self.candidates[pick])
                if queued is None:
                    break  # it cannot run (recorded INVALID): propose again without it
                flight.append((pick, queued))
                reasons[queued] = reason
                self._record_reason(queued, reason)
                if self.on_queue is not None:
                    self.on_queue(self.candidates[pick], reason, len(flight))
            watching = [item for _, item in flight]
            if not flight:
                if free > 0 and not picks:
                    result.notes.append("stopped early: no configuration is left that could improve on the best")
                if free <= 0 or not picks:
                    return
                continue
            self._wait(watching)

    def _state(self):
        """The target's runs in queue order: finished ones as (candidate index, value or None if failed), those
        in flight (PENDING or RUNNING) as (candidate index, (key, repeat)), the candidates recorded INVALID,
        and the finished trials (INVALID too) by (key, repeat)."""
        done, flight, invalid, finished = [], [], [], {}
        trials = [t for t in self.study.trials() if t.workload_key == self.workload_key and t.config_key in self.index]
        for trial in sorted(trials, key=lambda t: (t.seq is None, t.seq or 0, t.id)):
            index = self.index[trial.config_key]
            if trial.state in ("COMPLETE", "FAILED"):
                value = self.objective.run_value(trial) if trial.state == "COMPLETE" and trial.phases else None
                done.append((index, value))
            elif trial.state in ("PENDING", "RUNNING"):
                flight.append((index, (trial.config_key, trial.repeat)))
            elif trial.state == "INVALID":
                invalid.append(index)
            if trial.state in ("COMPLETE", "FAILED", "INVALID"):
                finished[(trial.config_key, trial.repeat)] = trial
        return done, flight, invalid, finished

    def _propose(self, engine, done, invalid, pending: list[int], free: int) -> list[tuple[int, str]]:
        """Up to ``free`` (candidate, reason) to queue next, none of them in flight (``pending``).

        The default configuration comes first while it has no run.  Runs in
        flight are told to the engine as pending: each as if it had given the
        model's current mean there (a kriging believer, what the engine itself
        does between the proposals of one ``suggest`` call), so the engine
        spreads the batch around them instead of proposing them again; any
        proposal still naming one (the engine may ask to re-run a contested
        best) is dropped.  The same runs and the same runs in flight give the
        same proposals.
        """
        told = list(done) + [(i, None) for i in invalid]  # an invalid candidate is never proposed again
        picks: list[tuple[int, str]] = []
        default = self.index.get(self.default.key)
        if default is not None and default not in {i for i, _ in done} | set(pending) | set(invalid):
            picks.append((default, "the default configuration: the baseline to beat"))
        busy = [*pending, *(i for i, _ in picks)]
        wanted = free - len(picks)
        if wanted <= 0:
            return picks
        believed = told + self._beliefs(engine, told, busy)
        for pick in engine.suggest(believed, wanted + len(busy)):
            if pick in busy:
                continue
            picks.append((pick, self._reason(pick, told, engine)))
            busy.append(pick)
            if len(picks) == free:
                break
        return picks

    @staticmethod
    def _beliefs(engine, told, busy: list[int]) -> list[tuple[int, float]]:
        """(candidate, the model's mean there given what is told and believed so far) for each run in flight;
        none while the engine knows nothing (no prior, no success): its mean would be made up."""
        if not busy or (engine.prior.workloads == 0 and all(v is None for _, v in told)):
            return []
        beliefs: list[tuple[int, float]] = []
        for index in busy:
            mean, _ = engine.predict(told + beliefs)
            beliefs.append((index, float(math.exp(mean[index])) if engine.log else float(mean[index])))
        return beliefs

    def prices(self) -> np.ndarray | None:
        """Under the cost objective, each candidate's known price per second of run (the objective's cost
        model: pricing.yaml's instances and device classes), which the engine uses exactly instead of
        learning it; None for the other objectives.  Cost is linear in the run's seconds, so the price is
        the cost of one second."""
        if self.objective.name != "cost":
            return None
        prices = np.array([self.objective.cost_model.cost(1.0, c.to_dict(), self.objective.compute_instances)
                           for c in self.candidates])
        if not (np.isfinite(prices) & (prices > 0)).all():
            raise TuneError("under --objective cost every candidate needs a positive price; the pricing file "
                            "prices some at 0")
        return prices

    def _acquire_lease(self) -> None:
        current = self.store.get_study(self.study.name).controller
        holder = self.store.acquire_controller(self.study.id, self.owner, stale_before=stale_before(self.grace_s),
                                               dead_owners=(current,) if owner_is_dead(current) else ())
        if holder is not None:
            raise StudyError(f"study {self.study.name!r} is being run by {holder} (a live process); wait for it, "
                             "or leave it and continue later with the same command")

    def _prior(self):
        """Runs of the other workloads (this study's, and the prior studies'), as the engine's Prior."""
        from iotune.transfer import Prior

        rows, values, failed, labels = [], [], [], []
        for study in (self.study, *self.prior_studies):
            by_config: dict[str, list] = {}
            for trial in study.trials():
                if trial.state not in ("COMPLETE", "FAILED") or trial.workload_key == self.workload_key:
                    continue
                by_config.setdefault(trial.config_key, []).append(trial)
            for trials in by_config.values():
                try:
                    configuration = self.space.configuration(trials[0].config)
                except SpaceError:
                    continue  # a configuration of another study that this space cannot hold
                outcome = self.objective.outcome(trials)
                rows.append(configuration)
                values.append(outcome.value if outcome.state == "COMPLETE" else math.nan)
                failed.append(outcome.state != "COMPLETE")
                labels.append(configuration.workload_key)
        if not rows:
            return None, []
        return Prior(np.array(labels), features(self.space, rows, "system"), np.array(values), np.array(failed),
                     features(self.space, rows, "workload")), labels

    def _observations(self) -> list[tuple[int, float | None]]:
        """The target's finished runs so far, in the order they were queued: (candidate index, value or None if
        failed)."""
        return self._state()[0]

    def _reason(self, pick: int, observations, engine) -> str:
        """Why ``pick`` is run next, naming the regime it came from (``TransferTuner.regime``)."""
        if pick in {i for i, v in observations if v is not None}:
            return "run again: it cannot yet be told apart from the best"
        regime = engine.regime(observations)
        if regime == "start":
            return "the other workloads' winners: it did well on similar workloads in the store"
        if regime == "failing":
            return "every run so far failed: the configuration farthest from the failures"
        mean, std = engine.predict(observations)  # log units: std is about a relative error
        expected = f"{_value(math.exp(mean[pick]), self.objective.name)} ± {std[pick]:.0%}"
        if regime == "explore":
            text = f"exploring: the prior has not predicted this workload's runs; its own runs expect {expected}"
        elif regime == "broad":
            text = f"exploring while the budget allows, where the model is least sure: it expects {expected}"
        elif regime == "prior":
            text = f"the other workloads' model, fitted to this workload's runs, expects {expected}"
        else:
            text = f"the model expects {expected}"
        out = len(engine.ruled_out(observations))
        if out:
            text += (f"; {out} candidate(s) ruled out by their price (they would have to run faster than "
                     "best cost / price, more than any other workload sped up)")
        return text

    def _queue(self, configuration: Configuration) -> tuple[str, int] | None:
        """Queue one more run of ``configuration``; its (key, repeat), or None when it cannot run (then it is
        recorded INVALID, never proposed again)."""
        spec = self.study.spec
        try:
            benchmark = benchmark_spec(self.space, configuration, spec.benchmark)
        except SpaceError as error:
            self.store.mark_invalid(self.study.id, configuration.to_dict(), configuration.key,
                                    configuration.workload_key, str(error))
            return None
        repeats = [t.repeat for t in self.store.trials(self.study.id, config_keys=[configuration.key])]
        repeat = max(repeats) + 1 if repeats else 0
        self.store.enqueue(self.study.id, [{"config": configuration.to_dict(), "config_key": configuration.key,
                                            "workload_key": configuration.workload_key, "repeat": repeat,
                                            "benchmark": benchmark.to_dict()}])
        return configuration.key, repeat

    def _record_reason(self, run: tuple[str, int], reason: str) -> None:
        """Keep why a run was chosen in the study's settings (``tuning_reasons``, "<config key>#<repeat>": reason),
        for the report's tuning section.  The tuner holding the lease is the only writer of that key."""
        record = self.store.get_study(self.study.name)
        reasons = dict((record.settings or {}).get(REASONS_KEY) or {})
        reasons[f"{run[0]}#{run[1]}"] = reason
        self.store.update_settings(self.study.id, {REASONS_KEY: reasons})

    def _wait(self, wanted: list[tuple[str, int]]) -> None:
        """Until at least one of the ``wanted`` (key, repeat) runs has finished: run queued trials here with the
        worker, if any, else wait for workers elsewhere (the store is the only channel)."""
        keys = sorted({key for key, _ in wanted})
        while True:
            ran = self.worker.run_one() if self.worker is not None else False
            found = {(t.config_key, t.repeat): t.state for t in self.store.trials(self.study.id, config_keys=keys)}
            if any(found.get(item) in ("COMPLETE", "FAILED", "INVALID") for item in wanted):
                return
            if ran:
                continue
            if self.on_wait is not None:
                self.on_wait()
            time.sleep(self.poll_s)

    def _store_groups(self) -> list[tuple[str, list[float]]]:
        """Repeated runs of other workloads of this study and of every workload of the prior studies, as
        (workload, runs of one configuration): the store's evidence of the run-to-run noise when the target has
        few repeats."""
        groups = []
        for study in (self.study, *self.prior_studies):
            runs: dict[tuple[str, str], list[float]] = {}
            for trial in study.trials():
                if trial.state != "COMPLETE" or not trial.phases:
                    continue
                if study is self.study and trial.workload_key == self.workload_key:
                    continue  # the target's own runs: counted as such
                value = self.objective.run_value(trial)
                if value is not None:
                    runs.setdefault((trial.workload_key, trial.config_key), []).append(value)
            groups += [(f"{study.name}/{workload}", g) for (workload, _), g in runs.items() if len(g) > 1]
        return groups

    def _best(self, engine, observations) -> int | None:
        """The configuration to declare: the lowest mean of its runs, as every answer orders them
        (:func:`iotune.recommend.decision.fastest_first`), among those that never failed; for cost, the
        engine's (its values carry each configuration's price)."""
        from iotune.recommend.decision import Measured, fastest_first

        if self.objective.name == "cost":
            return engine.best(observations)
        failed = {i for i, v in observations if v is None}
        runs: dict[int, list[float]] = {}
        for i, v in observations:
            if i not in failed and v is not None and v > 0:
                runs.setdefault(i, []).append(v)
        ranked = fastest_first(Measured({}, self.candidates[i].key, values) for i, values in runs.items())
        return self.index[ranked[0].key] if ranked else None

    def _front(self) -> list[FrontPoint]:
        """The time-cost front of the target's successful runs (geometric means per configuration)."""
        from iotune.records import io_seconds

        runs: dict[int, list[tuple[float, float]]] = {}
        for trial in self.study.trials():
            if trial.workload_key != self.workload_key or trial.config_key not in self.index \
                    or trial.state != "COMPLETE" or not trial.phases:
                continue
            seconds, cost = io_seconds(trial.phases), self.objective.run_value(trial)
            if seconds > 0 and cost is not None and cost > 0:
                runs.setdefault(self.index[trial.config_key], []).append((math.log(seconds), math.log(cost)))
        points = [FrontPoint(self.candidates[i], math.exp(float(np.mean([t for t, _ in v]))),
                             math.exp(float(np.mean([c for _, c in v]))), len(v)) for i, v in runs.items()]
        return time_cost_front(points)

    def _summarise(self, result: TuneResult, engine, observations) -> TuneResult:
        result.runs = len(observations)
        default = self.index.get(self.default.key)
        summary = summarise_runs(observations, self._best(engine, observations), default, self._store_groups())

        def estimate(index, interval):
            return None if interval is None else Estimate(self.candidates[index], interval.value, interval.runs,
                                                          interval.low, interval.high)

        result.best = estimate(summary.best_index, summary.best)
        result.default = estimate(default, summary.default)
        result.gain = result.gain_low = result.gain_high = None
        if summary.gain is not None:
            result.gain, result.gain_low, result.gain_high = summary.gain.value, summary.gain.low, summary.gain.high
        result.runner_up = estimate(summary.runner_up_index, summary.runner_up)
        result.separated = summary.separated
        result.noise = summary.noise.source
        return result


@dataclass
class RunSummary:
    """What a tuning's runs say (:func:`summarise_runs`); intervals are 95 %, indices are candidates'."""

    noise: Noise
    best_index: int | None = None
    best: Interval | None = None
    default: Interval | None = None
    gain: Interval | None = None
    runner_up_index: int | None = None
    runner_up: Interval | None = None
    separated: bool | None = None


def summarise_runs(observations, best: int | None, default: int | None, store_groups=()) -> RunSummary:
    """The best's mean, the default's, the gain default / best and whether the best is separated from the
    runner-up (the measured configuration with the next lowest mean), each with its 95 % interval.

    ``observations``: (candidate index, value or None if failed) per run; ``best`` the candidate declared;
    ``store_groups`` other repeated runs as (workload, runs of one configuration).  The noise is never the
    spread of one run (:mod:`iotune.variability.confidence`): the best's and the gain's intervals are
    corrected for the best having been picked as the lowest of the measured configurations.  ``separated`` is
    None without a runner-up.
    """
    runs: dict[int, list[float]] = {}
    for i, v in observations:
        if v is not None and v > 0:
            runs.setdefault(i, []).append(v)
    noise = estimate_noise(runs.values(), store_groups)
    summary = RunSummary(noise)
    if best is None or best not in runs:
        return summary
    picked_from = len(runs)
    summary.best_index, summary.best = best, mean_interval(runs[best], noise, comparisons=picked_from)
    if default is not None and default in runs:
        summary.default = mean_interval(runs[default], noise)
        summary.gain = ratio_interval(runs[default], runs[best], noise, comparisons=picked_from)
    others = [i for i in runs if i != best]
    if others:
        runner = min(others, key=lambda i: float(np.mean(np.log(runs[i]))))
        summary.runner_up_index, summary.runner_up = runner, mean_interval(runs[runner], noise)
        summary.separated = separated(runs[best], runs[runner], noise, comparisons=picked_from)
    return summary

def time_cost_front(points: list[FrontPoint]) -> list[FrontPoint]:
    """The points no other point beats on both time and cost (ties kept once), fastest first."""
    front: list[FrontPoint] = []
    for point in sorted(points, key=lambda p: (p.time, p.cost)):
        if not front or point.cost < front[-1].cost:
            front.append(point)
    return front


def _value(value: float, objective: str) -> str:
    if objective == "time":
        return f"{value:.4g} s"
    if objective == "bandwidth":
        return f"{1 / value:.4g} MiB/s" if value > 0 else "-"
    return f"{value:.4g}"
