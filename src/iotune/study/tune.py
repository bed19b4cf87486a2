"""The budgeted tuner: the best configuration of one workload within a few real runs, and how sure it is.

``iotune tune`` (and :meth:`iotune.api.Study.tune`) is a campaign
(:class:`~iotune.study.campaign.Campaign`: the study's lease, INVALID marking,
the queue, workers here or in a Slurm job array) driven by the transfer
sampler (:class:`~iotune.samplers.TransferSampler`), which chooses each next
run from everything known:

- the *prior*: every other workload's runs in the store (the study itself and
  any ``prior_studies``), paper 000's shared database taken further
  (:func:`prior_outcomes`);
- the target's own runs so far, each one as it comes (noisy: a close contender
  may be run again rather than declared).

The sampler keeps no state but the runs, so a tuning killed at any moment and
run again continues where it stopped: the campaign tells it the stored runs
of its workload first, and waits for those left in flight (never queued
again).  The budget counts the target workload's runs in the study, so running
the same tuning twice spends it once.  The default configuration is measured
first (it is the baseline a gain is stated against), unless ``baseline=False``
(``--no-baseline``): then no gain is stated unless the tuner ran the default
anyway.  With ``workers`` runs in
flight (a Slurm job array) the campaign asks for each free slot as a run ends.

This module prepares that campaign (:class:`Tuning`) and states its result:
the best with its interval, the gain over the default, whether the runner-up
is separated (:func:`summarise_runs`), and under cost the time-cost front.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from iotune.errors import IotuneError, SpaceError
from iotune.samplers.race import DEFAULT_PRECISION
from iotune.samplers.transfer import TransferSampler, features, workload_configurations
from iotune.space import Configuration
from iotune.study.campaign import REASONS_KEY, ROUNDS_KEY, Campaign
from iotune.study.objective import Objective
from iotune.study.study import Study
from iotune.study.worker import GRACE_S, Worker
from iotune.variability.confidence import Interval, Noise, mean_interval, store_spread
from iotune.variability.estimate import Estimate as RunsEstimate
from iotune.variability.estimate import Run
from iotune.variability.estimate import estimate as estimate_runs

__all__ = ["AUTO_FIRST_BUDGET", "AUTO_MAX_RUNS", "REASONS_KEY", "ROUNDS_KEY", "SPEC_DEFAULT", "Estimate",
           "FrontPoint", "Step", "TuneError", "TuneResult", "Tuning", "baseline_values", "budget_to_decide",
           "declared_best", "extended_study_name", "features", "prior_outcomes", "summarise_runs", "time_cost_front",
           "tune_to_decision", "undecided_note", "with_workload_levels", "workload_configurations"]

AUTO_FIRST_BUDGET = 8
"""Without a budget (``iotune tune`` with no ``--budget``): the first runs, enough for 2 race rounds that measure the
paired noise, after which the tuning runs on to what a decision needs (:func:`budget_to_decide`)."""
AUTO_MAX_RUNS = 60
"""Without a budget: the most runs a tuning runs on to for a decision (a flat space's near-ties never decide)."""
POLL_S = 1.0
"""Seconds between looks at the store while runs are in flight elsewhere."""
BEFORE = "queued before this tuner (re)started"
SPEC_DEFAULT = "the default configuration (each system parameter at its spec's default:)"
NO_BASELINE = ("no gain against the default is stated: it was not measured (the tuning skipped the baseline, "
               "--no-baseline)")


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
    low: float | None
    high: float | None


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
    tied: list[Configuration] = field(default_factory=list)
    """The best and every measured configuration its runs cannot tell from it (empty: the noise is unknown)."""
    noise: str = ""
    steps: list[Step] = field(default_factory=list)
    candidates: int = 0
    prior_workloads: int = 0
    notes: list[str] = field(default_factory=list)
    front: list[FrontPoint] = field(default_factory=list)
    confirmed: bool = False
    decided: bool = False
    race_runs: int = 0
    race_rounds: int = 0
    more_runs_needed: int | None = None
    """Runs more the race would need for its decision and precision at the noise measured (None: had)."""
    more_runs_to_decide: int | None = None
    """Runs more the race would need for its decision alone, the gain's interval off 1 (None: decided)."""
    race_noise: float | None = None
    """The race's paired run-to-run spread (log units: 0.3 is about ±30 % a run); None: no race."""
    planned_race_runs: int | None = None
    precision: float | None = None
    baseline_source: str = ""


def prior_outcomes(studies, space, objective: Objective, workload_key: str | None = None) -> list:
    """(Configuration, Outcome) of every configuration of another workload than ``workload_key`` in
    ``studies`` (one per configuration and study, over its COMPLETE and FAILED runs): the transfer sampler's
    prior.  Configurations ``space`` cannot hold are left out."""
    out = []
    for study in studies:
        by_config: dict[str, list] = {}
        for trial in study.trials():
            if trial.state not in ("COMPLETE", "FAILED") or trial.workload_key == workload_key:
                continue
            by_config.setdefault(trial.config_key, []).append(trial)
        for trials in by_config.values():
            try:
                configuration = space.configuration(trials[0].config)
            except SpaceError:
                continue  # a configuration of another study that this space cannot hold
            out.append((configuration, objective.outcome(trials)))
    return out


def price_of(objective: Objective) -> Callable[[Configuration], float] | None:
    """Under the cost objective, a configuration's known price per second of run (the objective's cost model:
    pricing.yaml's instances and device classes; cost is linear in the run's seconds, so the price is the cost
    of one second); None for the other objectives."""
    if objective.name != "cost":
        return None
    return lambda configuration: objective.cost_model.cost(1.0, configuration.to_dict(), objective.compute_instances)


def transfer_sampler(study: Study | None, space, workload: dict, budget: int | None, *, objective: Objective,
                     prior_studies=(), seed: int = 0, workers: int = 1, engine_options: dict | None = None,
                     store=None, candidates=None, baseline: bool = True, race=None,
                     baseline_values: dict | None = None) -> TransferSampler:
    """The transfer sampler of ``workload`` over ``space``, its prior read from ``study`` (None: not made yet)
    and ``prior_studies`` (Study objects, or names in ``store``); ``candidates`` (None: every valid
    configuration of the workload) and ``baseline`` as :class:`~iotune.samplers.TransferSampler` takes them."""
    if store is not None:
        prior_studies = [p if isinstance(p, Study) else Study.open(store, p) for p in prior_studies]
    studies = [s for s in (study, *prior_studies) if s is not None]
    return TransferSampler(space, seed=seed, budget=budget, workload=workload, price=price_of(objective),
                           workers=workers, objective=objective.name, engine_options=engine_options,
                           prior=prior_outcomes(studies, space, objective), candidates=candidates, baseline=baseline,
                           race=race, baseline_values=baseline_values)


class Tuning:
    """Tunes ``workload`` in ``study`` within ``budget`` runs: a campaign driven by the transfer sampler.

    ``worker`` runs the trials here (None: workers elsewhere, e.g. a Slurm job
    array, claim them from the store; ``workers`` runs are then kept in
    flight).  ``prior_studies`` add other studies' runs (same parameter names)
    to the prior; ``on_step(step, result_so_far)`` is called after every run.
    ``on_start()``, ``on_wait()`` (every ``poll_s`` seconds while runs are in
    flight elsewhere; it may raise to end the tuning) and ``grace_s`` go to the
    :class:`~iotune.study.campaign.Campaign`; ``on_queue(configuration,
    reason, in_flight)`` is called for every run queued.  ``candidates``: the
    configurations to choose among (None: every valid one of the workload);
    ``baseline=False`` skips measuring the default first (no gain is stated then).
    """

    def __init__(self, study: Study, worker: Worker | None, workload: dict, budget: int, *,
                 objective: Objective | None = None, prior_studies: tuple[Study, ...] = (), seed: int = 0,
                 on_step: Callable[[Step, TuneResult], None] | None = None, engine_options: dict | None = None,
                 workers: int = 1, on_start: Callable[[], None] | None = None,
                 on_wait: Callable[[], None] | None = None,
                 on_queue: Callable[[Configuration, str, int], None] | None = None,
                 poll_s: float = POLL_S, grace_s: float = GRACE_S, candidates=None, baseline: bool = True,
                 race: bool = True, precision: float | None = None, baseline_values: dict | None = None,
                 baseline_source: str = SPEC_DEFAULT):
        from iotune.samplers import SamplerError

        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise TuneError(f"the budget is a number of runs >= 1, got {budget!r}")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise TuneError(f"workers is a number of runs in flight >= 1, got {workers!r}")
        if precision is not None and not (isinstance(precision, int | float) and 0 < precision < 10):
            raise TuneError(f"the precision is the gain's wanted relative half-width, such as 0.1 for ±10%, "
                            f"got {precision!r}")
        self.precision = DEFAULT_PRECISION if precision is None else precision
        self.baseline_source = baseline_source
        self.study = study
        self.space = study.space
        self.budget = budget
        self.objective = objective or Objective(study.spec.campaign.objective)
        self.prior_studies = tuple(prior_studies)
        self.on_step = on_step
        try:
            self.sampler = transfer_sampler(study, self.space, dict(workload), budget, objective=self.objective,
                                            prior_studies=self.prior_studies, seed=seed, workers=workers,
                                            engine_options=engine_options, candidates=candidates,
                                            baseline=baseline, baseline_values=baseline_values)
        except SamplerError as error:
            raise TuneError(str(error)) from None
        self.candidates = self.sampler.candidates
        self.workload_key = self.sampler.workload_key
        self.steps: list[Step] = []
        self._groups: list | None = None
        if race:
            self.sampler.race = self._race(baseline)
        self.campaign = Campaign(study, self.sampler, worker, objective=self.objective, poll_s=poll_s,
                                 grace_s=grace_s, on_start=on_start, on_wait=on_wait, on_run=self._ran,
                                 on_batch=self._queued(on_queue) if on_queue is not None else None)

    def run(self) -> TuneResult:
        """Run until the budget is spent or the sampler has nothing worth running; returns the result.

        Holds the study's controller lease meanwhile (StudyError when a live
        process holds it).  Runs already in flight in the store (a tuning that
        was left or died) are waited for, never queued again.  KeyboardInterrupt
        again once the lease is given back, when interrupted.
        """
        report = self.campaign.run()
        if report.interrupted:
            raise KeyboardInterrupt
        result = self.result()
        result.steps = list(self.steps)
        race = self.sampler.race
        if result.best is not None and result.default is not None and \
                result.best.configuration.key == result.default.configuration.key:
            result.notes.append("the default configuration is the best the tuner found: no gain over it to state")
        elif race is not None and race.outcome == "decided":
            result.notes.append(f"decided: after {result.race_rounds} race rounds the gain's interval lies above 1"
                                + (f" and within ±{self.precision:.0%}" if self.precision else "")
                                + f"; {max(0, self.budget - result.runs)} run(s) of the budget left unspent")
        elif self.sampler.stopped_early:
            result.notes.append("stopped early: no configuration is left that could improve on the best")
        note = undecided_note(result)
        if note:
            result.notes.append(note)
        if not self.sampler.baseline and result.best is not None and result.default is None:
            result.notes.append(NO_BASELINE)
        result.front = self._front() if self.objective.name == "cost" else []
        note = self._load_note(result)
        if note:
            result.notes.append(note)
        return result

    def _load_note(self, result: TuneResult) -> str | None:
        """Warn when the best's and the default's runs were measured under very different loads (unraced)."""
        from iotune.variability.estimate import load_note

        if result.best is None or result.default is None:
            return None
        loads: dict[str, list[float]] = {}
        for trial in self.study.trials():
            load = ((trial.extra or {}).get("conditions") or {}).get("load_before")
            if trial.workload_key == self.workload_key and isinstance(load, int | float):
                loads.setdefault(trial.config_key, []).append(float(load))
        return load_note(loads.get(result.best.configuration.key, []),
                         loads.get(result.default.configuration.key, []), result.confirmed)

    def _race(self, baseline: bool):
        """The race that ends this tuning (:mod:`iotune.samplers.race`), with the rounds its runs already played."""
        from iotune.samplers.race import Race

        sampler = self.sampler
        stored = self.study.store.get_study(self.study.name).settings.get(ROUNDS_KEY) or {}
        rounds = {}
        for run, played in stored.items():
            key, _, repeat = run.rpartition("#")
            if key in sampler.index and repeat.isdigit():
                rounds[(sampler.index[key], int(repeat))] = int(played)
        default = sampler.index.get(sampler.default.key) if baseline else None
        return Race(self.budget, baseline=default, elsewhere=store_spread(self._store_groups()), rounds=rounds,
                    precision=self.precision)

    def result(self) -> TuneResult:
        """What the runs told so far say (best, default, gain, runner-up, noise)."""
        sampler = self.sampler
        observations = sampler.observations
        result = TuneResult(self.objective.name, self.budget, len(observations), None, None,
                            candidates=len(self.candidates), prior_workloads=sampler.prior_workloads,
                            precision=self.precision, baseline_source=self.baseline_source)
        default = sampler.index.get(sampler.default.key)
        race = sampler.race
        rounds = [run.round for run in race.runs] if race is not None else None
        summary = summarise_runs(observations, self._best(observations), default, self._store_groups(), rounds)

        # no configuration ran twice and no repeat is in the store: the noise is unknown, and an interval from
        # the conservative prior alone (at its few degrees of freedom) would be too wide to say anything
        known = summary.known

        def estimate(index, interval):
            return None if interval is None else Estimate(self.candidates[index], interval.value, interval.runs,
                                                          interval.low if known else None,
                                                          interval.high if known else None)

        result.best = estimate(summary.best_index, summary.best)
        result.default = estimate(default, summary.default)
        if summary.gain is not None and summary.best_index == default:
            result.gain = 1.0  # the default is the best found: no gain to state, and no interval of none
        elif summary.gain is not None:
            result.gain = summary.gain.value
            if known:
                result.gain_low, result.gain_high = summary.gain.low, summary.gain.high
        result.runner_up = estimate(summary.runner_up_index, summary.runner_up)
        result.separated = summary.separated if known else None
        if known and summary.estimate is not None:
            result.tied = [self.candidates[int(key)] for key in summary.estimate.tied]
        result.noise = summary.noise.source
        if summary.confirmed and summary.estimate is not None and summary.estimate.paired_noise is not None:
            result.noise += f"; the race's rounds: {summary.estimate.paired_noise.source}"
        result.confirmed = summary.confirmed
        result.decided = summary.decided
        if race is not None:
            result.race_runs = sum(r is not None for r in rounds or ())
            result.race_rounds = summary.rounds
            result.planned_race_runs = race.planned
            if summary.estimate is not None:
                paired = summary.estimate.paired_noise
                result.race_noise = None if paired is None else paired.spread
                result.more_runs_needed = race.more_needed(summary.estimate)
                result.more_runs_to_decide = race.more_needed(summary.estimate, precision=False)
        return result

    def _ran(self, trial, configuration: Configuration, outcome) -> None:
        """A run of the target was told to the sampler: one more step of the history."""
        if not self.sampler.owns(configuration) or outcome.state == "INVALID":
            return
        reason = self.sampler.reason(configuration) or BEFORE
        value = self.sampler.observations[-1][1]
        step = Step(len(self.sampler.observations), configuration, reason, value)
        self.steps.append(step)
        if self.on_step is not None:
            self.on_step(step, self.result())

    def _queued(self, on_queue):
        def queued(count: int) -> None:
            for configuration in self.sampler.last:
                on_queue(configuration, self.sampler.reason(configuration), count)
        return queued

    def _store_groups(self) -> list[tuple[str, list[float]]]:
        """Repeated runs of other workloads of this study and of every workload of the prior studies, as
        (workload, runs of one configuration): the store's evidence of the run-to-run noise when the target has
        few repeats (read once: the target's runs are not among them)."""
        if self._groups is not None:
            return self._groups
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
        self._groups = groups
        return groups

    def _best(self, observations) -> int | None:
        """The engine's pick under cost (its values carry each configuration's price); None: the estimate's."""
        return declared_best(self.sampler, observations, self.objective.name) if self.objective.name == "cost" \
            else None

    def _front(self) -> list[FrontPoint]:
        """The time-cost front of the target's successful runs (geometric means per configuration)."""
        from iotune.records import io_seconds

        index = self.sampler.index
        runs: dict[int, list[tuple[float, float]]] = {}
        for trial in self.study.trials():
            if trial.workload_key != self.workload_key or trial.config_key not in index \
                    or trial.state != "COMPLETE" or not trial.phases:
                continue
            seconds, cost = io_seconds(trial.phases), self.objective.run_value(trial)
            if seconds > 0 and cost is not None and cost > 0:
                runs.setdefault(index[trial.config_key], []).append((math.log(seconds), math.log(cost)))
        points = [FrontPoint(self.candidates[i], math.exp(float(np.mean([t for t, _ in v]))),
                             math.exp(float(np.mean([c for _, c in v]))), len(v)) for i, v in runs.items()]
        return time_cost_front(points)


def undecided_note(result: TuneResult) -> str | None:
    """What a race that ended with its budget, undecided, says plainly: how far it got and how many runs more a
    decision would take at the noise it measured (None: decided, unraced, or nothing to say)."""
    more = result.more_runs_to_decide
    if not result.confirmed or not more or result.best is None or result.default is None:
        return None
    rounds = f"the race's {result.race_rounds} round(s) ({result.race_runs} runs)"
    gap = "the gap is as measured" if result.best.configuration.key == result.default.configuration.key else \
        f"the gain is the {result.gain:.2f}x measured"
    noise = "" if result.race_noise is None else f" (±{result.race_noise:.0%} a run, paired)"
    then = (f"about {more} more run(s) would decide it, if {gap}, at the noise measured{noise}: --budget "
            f"{result.runs + more} continues this tuning")
    if result.best.configuration.key == result.default.configuration.key:
        others = [c.describe() for c in result.tied if c.key != result.default.configuration.key]
        return (f"undecided: the default led {rounds}, but not beyond the noise"
                + (f" (they cannot tell it from {'; '.join(others)})" if others else "")
                + f"; {then}")
    interval = "" if result.gain_low is None else \
        f" (95% interval {result.gain_low:.2f}x .. {result.gain_high:.2f}x)"
    precise = f"; about {result.more_runs_needed} more (--budget {result.runs + result.more_runs_needed}) to know it " \
        f"within ±{result.precision:.0%}" \
        if result.precision and result.more_runs_needed and result.more_runs_needed > more else ""
    return (f"undecided: the budget of {result.budget} ended {rounds} before the gain over the default was "
            f"beyond the noise{interval}; {then}{precise}")


def budget_to_decide(result: TuneResult, most: int = AUTO_MAX_RUNS) -> int | None:
    """The budget that continues an undecided race to its decision at the noise it measured (its runs and
    ``more_runs_to_decide``), when within ``most`` runs; None when decided, unraced, or beyond ``most``."""
    if not result.confirmed or not result.more_runs_to_decide:
        return None
    wanted = result.runs + result.more_runs_to_decide
    return wanted if wanted <= most else None


def tune_to_decision(start: Callable[[int], Tuning], budget: int | None,
                     on_more: Callable[[TuneResult, int], None] | None = None) -> TuneResult:
    """A tuning of ``budget`` runs (``start(budget).run()``); without one (None), ``AUTO_FIRST_BUDGET`` runs, then
    continued (the same study: the race goes on) to :func:`budget_to_decide` while it is within ``AUTO_MAX_RUNS``,
    ``on_more(result, budget)`` told before each continuation; the result says when a decision lies beyond."""
    result = start(budget or AUTO_FIRST_BUDGET).run()
    steps = list(result.steps)
    while budget is None and (wanted := budget_to_decide(result)) is not None:
        if on_more is not None:
            on_more(result, wanted)
        before = result.runs
        result = start(wanted).run()
        steps += result.steps
        result.steps = list(steps)  # the history of every run this tuning made, not only the last continuation's
        if result.runs <= before:
            break  # the race made no run more (nothing left to race): asking again would not either
    if budget is None and result.confirmed and result.more_runs_to_decide:
        result.notes.append(f"without --budget a tuning runs on while a decision is within {AUTO_MAX_RUNS} runs; "
                            f"this one would need {result.runs + result.more_runs_to_decide}")
    return result


def declared_best(sampler: TransferSampler, observations, objective: str) -> int | None:
    """The candidate a tuning declares after ``observations`` ((candidate index, value or None) runs): the
    estimate's best (:mod:`iotune.variability.estimate`, as every answer picks: the lowest geometric mean among
    those that never failed, over the race's runs when it raced); for cost, the engine's (its values carry each
    configuration's price).
    The replay benchmark declares its ``engine`` picks with it too."""
    if objective == "cost":
        return sampler.engine.best(observations)
    rounds = [run.round for run in sampler.race.runs] if getattr(sampler, "race", None) is not None else None
    return summarise_runs(observations, None, None, rounds=rounds).best_index


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
    confirmed: bool = False
    decided: bool = False
    rounds: int = 0
    estimate: RunsEstimate | None = None
    known: bool = False
    """Whether the intervals say something: a repeat measured the noise (here, in the store, or by a race);
    from the conservative prior alone they are too wide to act on, and are not stated."""


def summarise_runs(observations, best: int | None, default: int | None, store_groups=(),
                   rounds=None) -> RunSummary:
    """The best's mean, the default's, the gain default / best and whether the best is separated from the
    runner-up, each with its 95 % interval: :func:`iotune.variability.estimate.estimate` of the runs, the one
    estimate every answer gives.

    ``observations``: (candidate index, value or None if failed) per run; ``rounds``: each run's race round
    (None: not raced), aligned with ``observations``; ``best``: the candidate to declare (None: the
    estimate's); ``store_groups`` other repeated runs as (workload, runs of one configuration).
    ``separated`` is None without a runner-up.
    """
    rounds = list(rounds) if rounds is not None else [None] * len(observations)
    runs = [Run(str(i), v, r) for (i, v), r in zip(observations, rounds, strict=False)]
    found = estimate_runs(runs, baseline=None if default is None else str(default),
                          elsewhere=store_spread(store_groups), pick_from=None if best is None else [str(best)])
    summary = RunSummary(found.noise, estimate=found, confirmed=found.confirmed, rounds=found.rounds,
                         known=found.known or found.confirmed)
    if found.best is None:
        return summary
    values: dict[str, list[float]] = {}
    for run in runs:
        if run.value is not None and run.value > 0:
            values.setdefault(run.config, []).append(run.value)
    summary.best_index, summary.best = int(found.best), found.best_mean
    if found.baseline is not None:
        summary.default = mean_interval(values[found.baseline], found.noise)
        summary.gain = found.gain
        summary.decided = found.decided
    runner = found.runner_up
    if runner is not None:
        summary.runner_up_index, summary.runner_up = int(runner), mean_interval(values[runner], found.noise)
        summary.separated = found.ratios[runner].low > 1.0
    return summary


def time_cost_front(points: list[FrontPoint]) -> list[FrontPoint]:
    """The points no other point beats on both time and cost (ties kept once), fastest first."""
    front: list[FrontPoint] = []
    for point in sorted(points, key=lambda p: (p.time, p.cost)):
        if not front or point.cost < front[-1].cost:
            front.append(point)
    return front


def with_workload_levels(spec, values: dict):
    """The spec with each workload value that is not a level added as one (sorted), and the names extended
    (``transfer_size=3MiB``): any workload can be tuned, in a study of its own (:func:`extended_study_name`)."""
    from dataclasses import replace

    from iotune.space import Space
    from iotune.workload import BENCHMARK_FIELDS

    space = spec.space
    unknown = [name for name in values if name not in {p.name for p in space.workload_parameters}
               and name not in BENCHMARK_FIELDS]
    if unknown:
        raise TuneError(f"--workload names {', '.join(unknown)}, not workload parameters of space {space.name!r}")
    parameters, extended = [], []
    for parameter in space.parameters:
        value = values.get(parameter.name)
        if parameter.role == "workload" and value is not None and value not in parameter.levels:
            if parameter.type in ("integer", "size"):
                levels = tuple(sorted([*parameter.levels, value]))
            else:
                levels = (*parameter.levels, value)
            parameter = replace(parameter, levels=levels)
            extended.append(f"{parameter.name}={parameter.format(value)}")
        parameters.append(parameter)
    if not extended:
        return spec, []
    return replace(spec, space=Space(space.name, parameters, space.constraints, space.description)), extended


def extended_study_name(study: str, extended: list[str]) -> str:
    """The study a workload with values added as levels is tuned in (``hints-transfer_size=3MiB``)."""
    return f"{study}-{'-'.join(extended)}"


def resolve_baseline(space, workload: dict, given: str | None, scratch: Callable[[], Path]
                     ) -> tuple[dict, str, list[str]]:
    """:func:`baseline_values` with ROMIO's defaults and the file system's default layout read in the scratch
    directory ``scratch()`` returns (made ready only when one of them is asked for): the one reading of
    ``--baseline`` for ``iotune tune`` and :meth:`iotune.Study.tune`."""

    def read_romio() -> dict:
        from iotune.bench.romio_defaults import romio_defaults

        return romio_defaults(scratch())

    def read_layout() -> dict:
        from iotune.fslayout import default_layout

        return default_layout(scratch())

    return baseline_values(space, workload, given, read_romio, read_layout)


def baseline_values(space, workload: dict, given: str | None, read_romio: Callable[[], dict] | None = None,
                    read_layout: Callable[[], dict] | None = None) -> tuple[dict, str, list[str]]:
    """The system values of the configuration gains are stated against, what it is, and notes.

    ``given``: None (the spec's defaults), ``romio`` (ROMIO's defaults as ``MPI_File_get_info`` reports them for a
    file opened with no hints, ``read_romio()``: each hint parameter at the level ROMIO uses), ``filesystem`` (the
    layout a new file in the scratch directory gets, ``read_layout()``: each layout parameter at that level), in
    both the spec's default where no level matches; or ``name=value`` pairs of system parameters (the others at
    their defaults)."""
    from iotune.errors import SpaceError
    from iotune.spec.mapping import hint_key, is_layout_parameter

    if given is None:
        return {}, SPEC_DEFAULT, []
    values: dict = {}
    notes: list[str] = []
    asked = given.strip().lower()
    if asked in ("romio", "filesystem"):
        reader = read_romio if asked == "romio" else read_layout
        if reader is None:
            raise TuneError(f"--baseline {asked} cannot be read here")
        found = reader()
        for parameter in space.system_parameters:
            key = hint_key(parameter) if asked == "romio" else \
                parameter.name if is_layout_parameter(parameter) else None
            if not key or key not in found:
                continue
            level = next((v for v in parameter.levels if _same_setting(parameter, v, found[key])), None)
            if level is None:
                notes.append(f"the default {key}={found[key]} is not a level of {parameter.name}: the baseline uses "
                             f"the spec's default, {parameter.format(parameter.default)}")
            else:
                values[parameter.name] = level
        what = "ROMIO's defaults (the hints MPI_File_get_info reports for a file opened with none)" \
            if asked == "romio" else \
            f"the file system's default layout ({' '.join(f'{k}={v}' for k, v in sorted(found.items()))})"
    else:
        system = {p.name: p for p in space.system_parameters}
        for item in filter(None, (part.strip() for part in given.split(","))):
            name, sep, value = item.partition("=")
            if not sep or name.strip() not in system:
                raise TuneError(f"--baseline: {item!r} is not system_parameter=value (system parameters: "
                                f"{', '.join(system)}; or --baseline romio or filesystem)")
            try:
                values[name.strip()] = system[name.strip()].normalise(value.strip())
            except SpaceError as error:
                raise TuneError(f"--baseline: {error}") from None
        what = f"the baseline given ({given.strip()})"
    kept: dict = {}
    for name, value in values.items():  # a value the workload leaves inactive (its `when:` is false) is dropped
        try:
            space.configuration({**workload, **kept, name: value})
            kept[name] = value
        except SpaceError:
            continue
    return kept, what, notes


def _same_setting(parameter, level, text: str) -> bool:
    """Whether ``level`` of ``parameter`` is the setting ``text`` a probe read (a hint's text, a layout's bytes)."""
    from iotune.errors import SpaceError
    from iotune.spec.mapping import hint_value

    if hint_value(level).lower() == text.strip().lower():
        return True
    try:
        return parameter.normalise(text.strip()) == level
    except SpaceError:
        return False
