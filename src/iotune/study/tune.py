"""The budgeted tuner: the best configuration of one workload within a few real runs, and how sure it is.

``iotune tune`` measures one configuration at a time through the same queue and
workers as a campaign (a run is one trial), choosing each next run from
everything known (:class:`iotune.transfer.TransferTuner`):

- the *prior*: every other workload's runs in the store (the study itself and
  any ``prior_studies``), paper 000's shared database taken further;
- the target's own runs so far, each one as it comes (noisy: a close contender
  may be run again rather than declared).

The engine keeps no state but the runs, so a tuning killed at any moment and
run again continues where it stopped: the runs are read back from the store.
The budget counts the target workload's runs in the study, so running the same
tuning twice spends it once.  The default configuration is measured first (it
is the baseline a gain is stated against).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from iotune.errors import IotuneError, SpaceError
from iotune.space import Configuration
from iotune.spec.mapping import benchmark_spec
from iotune.study.objective import Objective
from iotune.study.study import Study
from iotune.study.worker import Worker, wait_for_trials

MAX_CANDIDATES = 50_000
Z95 = 1.959963984540054


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
    separated: bool = True
    steps: list[Step] = field(default_factory=list)
    candidates: int = 0
    prior_workloads: int = 0
    notes: list[str] = field(default_factory=list)


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
    """

    def __init__(self, study: Study, worker: Worker | None, workload: dict, budget: int, *,
                 objective: Objective | None = None, prior_studies: tuple[Study, ...] = (), seed: int = 0,
                 on_step: Callable[[Step, TuneResult], None] | None = None, engine_options: dict | None = None):
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise TuneError(f"the budget is a number of runs >= 1, got {budget!r}")
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
        self.candidates = workload_configurations(self.space, self.workload, seed=seed)
        if not self.candidates:
            raise TuneError(f"no valid configuration for workload {self.workload} in space {self.space.name!r}")
        self.index = {c.key: i for i, c in enumerate(self.candidates)}
        self.default = self.space.configuration({**self.workload})
        self.workload_key = self.default.workload_key

    def run(self) -> TuneResult:
        """Run until the budget is spent or the engine has nothing worth running; returns the result."""
        from iotune.transfer import TransferTuner

        prior, labels = self._prior()
        engine = TransferTuner(features(self.space, self.candidates, "system"), prior,
                               features(self.space, [self.default], "workload")[0], seed=self.seed,
                               **self.engine_options)
        result = TuneResult(self.objective.name, self.budget, 0, None, None, candidates=len(self.candidates),
                            prior_workloads=len(set(labels)))
        while True:
            observations = self._observations()
            result.runs = len(observations)
            if result.runs >= self.budget:
                break
            if self.default.key not in {self.candidates[i].key for i, _ in observations} \
                    and self.default.key in self.index:
                pick, reason = self.index[self.default.key], "the default configuration: the baseline to beat"
            else:
                chosen = engine.suggest(observations, 1)
                if not chosen:
                    result.notes.append("stopped early: no configuration is left that could improve on the best")
                    break
                pick = chosen[0]
                reason = self._reason(pick, observations, engine)
            configuration = self.candidates[pick]
            value = self._measure(configuration)
            step = Step(result.runs + 1, configuration, reason, value)
            result.steps.append(step)
            if self.on_step is not None:
                self.on_step(step, self._summarise(result, engine, self._observations()))
        return self._summarise(result, engine, self._observations())

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
        """The target's runs so far, in the order they were queued: (candidate index, value or None if failed)."""
        out = []
        trials = [t for t in self.study.trials() if t.workload_key == self.workload_key
                  and t.state in ("COMPLETE", "FAILED") and t.config_key in self.index]
        for trial in sorted(trials, key=lambda t: (t.seq is None, t.seq or 0, t.id)):
            value = self.objective.run_value(trial) if trial.state == "COMPLETE" and trial.phases else None
            out.append((self.index[trial.config_key], value))
        return out

    def _reason(self, pick: int, observations, engine) -> str:
        if pick in {i for i, _ in observations}:
            return "run again: it cannot yet be told apart from the best"
        succeeded = len({i for i, v in observations if v is not None})
        if engine.prior.workloads and succeeded < engine.warm_start + 1:
            return "a good guess: it did well on similar workloads in the store"
        mean, std = engine.predict(observations)  # log units: std is about a relative error
        return f"the model expects {_value(math.exp(mean[pick]), self.objective.name)} ± {std[pick]:.0%}"

    def _measure(self, configuration: Configuration) -> float | None:
        """Queue one more run of ``configuration`` and wait for it; its objective value (None when it failed)."""
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
        wait_for_trials(self.store, self.study.id, self.worker, {(configuration.key, repeat)})
        trial = next(t for t in self.store.trials(self.study.id, config_keys=[configuration.key])
                     if t.repeat == repeat)
        if trial.state != "COMPLETE" or not trial.phases:
            return None
        return self.objective.run_value(trial)

    def _estimate(self, pick: int, observations) -> Estimate | None:
        values = [v for i, v in observations if i == pick and v is not None and v > 0]
        if not values:
            return None
        logs = np.log(values)
        spread = self._noise(observations)
        half = Z95 * spread / math.sqrt(len(values))
        mean = float(np.exp(logs.mean()))
        return Estimate(self.candidates[pick], mean, len(values), mean * math.exp(-half), mean * math.exp(half))

    def _noise(self, observations) -> float:
        """Run-to-run spread in log units, pooled over the target's repeated candidates (0.05 when unknown)."""
        groups: dict[int, list[float]] = {}
        for i, v in observations:
            if v is not None and v > 0:
                groups.setdefault(i, []).append(math.log(v))
        squares = sum(float(np.sum((np.array(g) - np.mean(g)) ** 2)) for g in groups.values() if len(g) > 1)
        dof = sum(len(g) - 1 for g in groups.values() if len(g) > 1)
        return math.sqrt(squares / dof) if dof else 0.05

    def _summarise(self, result: TuneResult, engine, observations) -> TuneResult:
        result.runs = len(observations)
        best = engine.best(observations)
        result.best = None if best is None else self._estimate(best, observations)
        default = self.index.get(self.default.key)
        result.default = None if default is None else self._estimate(default, observations)
        if result.best is not None and result.default is not None:
            spread = self._noise(observations)
            se = spread * math.sqrt(1 / result.best.runs + 1 / result.default.runs)
            ratio = result.default.mean / result.best.mean
            result.gain, result.gain_low, result.gain_high = ratio, ratio * math.exp(-Z95 * se), \
                ratio * math.exp(Z95 * se)
        result.runner_up, result.separated = None, True
        if result.best is not None:
            others = [self._estimate(i, observations) for i in {i for i, v in observations if v is not None}
                      if self.candidates[i].key != result.best.configuration.key]
            others = [o for o in others if o is not None]
            if others:
                runner = min(others, key=lambda e: e.mean)
                result.runner_up = runner
                result.separated = runner.low > result.best.high
        return result


def _value(value: float, objective: str) -> str:
    if objective == "time":
        return f"{value:.4g} s"
    if objective == "bandwidth":
        return f"{1 / value:.4g} MiB/s" if value > 0 else "-"
    return f"{value:.4g}"
