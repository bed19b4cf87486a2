"""The transfer tuner as a sampler: one workload's best configuration within a budget of runs.

:class:`TransferSampler` proposes *runs* (``remeasures``): the engine
(:class:`iotune.transfer.TransferTuner`) chooses each next run from the other
workloads' outcomes it is given (the ``prior``) and the target workload's runs
told so far, one by one; a close contender may be run again rather than
declared.  The default configuration is proposed first (the baseline a gain is
stated against) unless ``baseline=False``.  The loop tells it the stored runs of its workload before its
first ``ask`` (:meth:`owns`), so a tuning resumed continues from them and its
``budget`` (runs of the workload, stored ones included) is spent once.

It may be asked again while runs it proposed are still outstanding (N
workers: a free slot is refilled as soon as a run ends): it proposes none of
them again at once, and tells the engine each as if it had given the model's
current mean there (a kriging believer: a constant liar whose lie is the
model's own prediction), so the new runs spread around them.  The same runs
told and the same runs outstanding give the same proposals.  A failed run is
penalised (the engine imputes it as slow and steers away from its
neighbours); an INVALID configuration is never proposed again and costs no
run.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

from iotune.errors import SpaceError
from iotune.samplers.base import Outcome, Sampler, SamplerError
from iotune.space import Configuration, Space

MAX_CANDIDATES = 50_000
DEFAULT_REASON = "the default configuration: the baseline to beat"
WINNERS_REASON = "the other workloads' winners: it did well on similar workloads in the store"
AGAIN_REASON = "run again: it cannot yet be told apart from the best"


def workload_configurations(space: Space, workload: dict, limit: int = MAX_CANDIDATES,
                            seed: int = 0) -> list[Configuration]:
    """Every valid configuration of ``space`` with its workload parameters at ``workload``'s values.

    A space with more than ``limit`` such configurations gives a seeded random
    ``limit`` of them.  SamplerError naming the levels when ``workload`` misses
    a workload parameter that has several.
    """
    import numpy as np

    names = [p.name for p in space.workload_parameters]
    missing = [n for n in names if n not in workload and len(space.parameter(n).levels) > 1]
    if missing:
        raise SamplerError("give the workload's " + ", ".join(
            f"{n} (levels: {', '.join(map(space.parameter(n).format, space.parameter(n).levels))})"
            for n in missing) + " with --workload")
    fixed = {n: workload.get(n, space.parameter(n).default) for n in names}
    system = list(space.system_parameters)
    total = math.prod(len(p.levels) for p in system)
    rng = np.random.default_rng(seed)
    out: dict[str, Configuration] = {}
    system_names = [p.name for p in system]
    if total <= limit * 4:
        for combo in itertools.product(*(p.levels for p in system)):
            try:
                configuration = space.configuration({**fixed, **dict(zip(system_names, combo, strict=True))})
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


def features(space: Space, configurations, role: str):
    """Encoded columns of the parameters of ``role`` ("system" or "workload") for ``configurations``."""
    import numpy as np

    encoder = space.encoder("onehot")
    columns = encoder.columns_of(role)
    return encoder.transform(configurations)[:, columns] if len(configurations) else np.zeros((0, len(columns)))


class TransferSampler(Sampler):
    """Runs of one ``workload`` (workload parameter -> value) of ``space``, chosen by the transfer engine.

    ``prior``: other workloads' outcomes, (Configuration, Outcome) pairs
    (outcomes of the target workload are left out).  ``price``: under a cost
    objective, each configuration's known price per second of run (the engine
    uses it exactly instead of learning it); None otherwise.  ``candidates``: the workload's configurations
    to choose among (None: every valid one, or a seeded ``limit`` of them).  ``baseline``: propose the
    default configuration first (the baseline a gain is stated against; ``baseline_values``: system values that
    replace the spec's defaults in it).  ``budget``: runs
    of the workload in all, the stored ones told on resuming included.
    ``workers``: runs kept in flight (the most asked for at once).  ``objective`` names the unit of the
    values in the reasons ("time": seconds).  ``engine_options`` go to
    :class:`~iotune.transfer.TransferTuner`.
    """

    name = "transfer"
    remeasures = True
    description = "the transfer tuner: one workload's runs, chosen from other workloads' and its own"

    def __init__(self, space: Space, *, seed: int = 0, budget: int | None = None, workload: dict | None = None,
                 prior: Sequence = (), price: Callable[[Configuration], float] | None = None, workers: int = 1,
                 objective: str = "time", engine_options: dict | None = None, limit: int = MAX_CANDIDATES,
                 candidates: Sequence[Configuration] | None = None, baseline: bool = True, race=None,
                 baseline_values: dict | None = None):
        super().__init__(space, seed=seed, budget=budget)
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise SamplerError(f"workers is a number of runs proposed at once >= 1, got {workers!r}")
        if workload is not None and not isinstance(workload, dict):
            raise SamplerError(f"workload is a mapping of workload parameter to value, got {workload!r}")
        self.workload = self._normalised(dict(workload or {}))
        self.batch = workers
        self.objective = objective
        self.baseline = bool(baseline)
        try:
            self.default = space.configuration({**self.workload, **(baseline_values or {})})
        except SpaceError as error:
            raise SamplerError(f"the workload's default configuration is not valid: {error}") from None
        self.workload_key = self.default.workload_key
        self.candidates = workload_configurations(space, self.workload, limit=limit, seed=seed) \
            if candidates is None else self._given(candidates)
        if not self.candidates:
            raise SamplerError(f"no valid configuration for workload {self.workload} in space {space.name!r}")
        self.index = {c.key: i for i, c in enumerate(self.candidates)}
        self.prior, self.prior_workloads, prior_rows = self._prior(prior)
        self.prices = self._prices(price, prior_rows)
        self.observations: list[tuple[int, float | None]] = []
        self.invalid: set[int] = set()
        self.stopped_early = False
        self._outstanding: dict[str, int] = {}  # key -> candidate index of each run asked for, in ask order
        self._reasons: dict[str, str] = {}
        self.last: list[Configuration] = []
        self._engine_options = dict(engine_options or {})
        self._engine = None
        self.race = race  # an iotune.samplers.race.Race: the last runs decide (None: every run searches)
        self._rounds: dict[str, int] = {}

    # ------------------------------------------------------------------ the sampler contract

    @property
    def remaining(self) -> int | None:
        """Runs left in the budget: the budget less the runs told and those asked for and not told yet."""
        if self.budget is None:
            return None
        return max(0, self.budget - len(self.observations) - len(self._outstanding))

    def ask(self, n: int = 1) -> list[Configuration]:
        """Up to ``n`` runs to make next, none of them outstanding (asked for and not told yet)."""
        want = self._want(n)
        if want == 0:
            return []
        told = self._told()
        busy = list(self._outstanding.values())
        picks: list[int] = []
        reasons: dict[int, str] = {}
        default = self.index.get(self.default.key)
        if self.baseline and default is not None and default not in {i for i, _ in told} | set(busy):
            picks.append(default)
            reasons[default] = DEFAULT_REASON
        rounds: dict[int, int] = {}
        if len(picks) < want and self.race is not None:
            self._race(picks, reasons, rounds, busy, want, searching=True)
        if len(picks) < want and not (self.race is not None and (self.race.done or self.race.started)):
            busy += picks
            beliefs = self._beliefs(told, busy)
            for pick in self.engine.suggest(told, want - len(picks) + len(busy), pending=beliefs):
                if pick in busy:
                    continue
                picks.append(pick)
                busy.append(pick)
                reasons[pick] = self._why(pick, told)
                if len(picks) == want:
                    break
        if not picks and self.race is not None and not self.race.done:
            self._race(picks, reasons, rounds, busy, want, searching=False)
        if not picks:
            self.stopped_early = not self._outstanding
            return []
        chosen = [self.candidates[i] for i in picks]
        self._reasons.update({self.candidates[i].key: reasons[i] for i in picks})
        self._rounds.update({self.candidates[i].key: rounds[i] for i in picks if i in rounds})
        self._outstanding.update({self.candidates[i].key: i for i in picks})
        self.last = chosen
        self.proposed += len(chosen)
        return chosen

    def _race(self, picks: list[int], reasons: dict[int, str], rounds: dict[int, int], busy: list[int], want: int,
              searching: bool) -> None:
        """Add the race's next runs (:mod:`iotune.samplers.race`) to ``picks``, none of them outstanding."""
        race = self.race
        while len(picks) < want:
            remaining = None if self.remaining is None else self.remaining - len(picks)
            if remaining is not None and remaining <= 0:
                return
            planned = race.next(remaining, searching)
            if planned is None:
                return
            index, played, reason = planned
            if index in busy or index in picks:
                race.pending.insert(0, index)
                race.rounds.pop((index, race.count(index)), None)
                return
            picks.append(index)
            reasons[index] = reason
            rounds[index] = played

    def round_of(self, configuration: Configuration) -> int | None:
        """The race round of the run of ``configuration`` last asked for (None: a search run)."""
        return self._rounds.get(configuration.key)

    def _beliefs(self, told, busy: list[int]) -> list[tuple[int, float]]:
        """(candidate, the model's mean there given what is told and believed so far) for each outstanding
        run; none while the engine knows nothing (no prior, no success): its mean would be made up."""
        engine = self.engine
        if not busy or (engine.prior.workloads == 0 and all(v is None for _, v in told)):
            return []
        beliefs: list[tuple[int, float]] = []
        for index in busy:
            mean, _ = engine.predict(told + beliefs)
            beliefs.append((index, float(math.exp(mean[index])) if engine.log else float(mean[index])))
        return beliefs

    def _learn(self, configuration: Configuration, outcome: Outcome) -> None:
        self._outstanding.pop(configuration.key, None)
        index = self.index.get(configuration.key)
        if index is None or configuration.workload_key != self.workload_key:
            return  # not one of this workload's runs: the prior is given when the sampler is made
        if outcome.state == "INVALID":
            self.invalid.add(index)
            return
        value = outcome.values[0] if outcome.state == "COMPLETE" and outcome.values else outcome.penalised
        self.observations.append((index, value if math.isfinite(value) and value > 0 else None))
        self._rounds.pop(configuration.key, None)
        if self.race is not None:
            self.race.observe(index, self.observations[-1][1])
        best = self.engine.best(self.observations)
        if best is None:
            self.best = None
            return
        values = [v for i, v in self.observations if i == best and v is not None]
        self.best = (self.candidates[best], Outcome.of(values))

    def tell(self, configuration: Configuration, outcome: Outcome) -> None:
        best = self.best
        super().tell(configuration, outcome)
        if configuration.key not in self.index:
            self.best = best  # the base keeps the lowest single outcome; this sampler declares the engine's best

    def owns(self, configuration: Configuration) -> bool:
        return configuration.workload_key == self.workload_key and configuration.key in self.index

    def reason(self, configuration: Configuration) -> str:
        return self._reasons.get(configuration.key, "")

    def record(self) -> dict:
        return {**super().record(), "workload": {k: v for k, v in self.workload.items()}}

    # ------------------------------------------------------------------ the engine

    @property
    def engine(self):
        """The :class:`~iotune.transfer.TransferTuner` over this workload's candidates (made on first use)."""
        if self._engine is None:
            from iotune.transfer import TransferTuner
            from iotune.transfer.engine import WARM_START

            options = {"price": self._price_of_rows(), **self._engine_options}
            if self.baseline:  # the default's run is no other workload's winner: the warm start runs one after it
                options.setdefault("warm_start", WARM_START + 1)
            self._engine = TransferTuner(features(self.space, self.candidates, "system"), self.prior,
                                         features(self.space, [self.default], "workload")[0], seed=self.seed,
                                         **options)
        return self._engine

    def _told(self) -> list[tuple[int, float | None]]:
        """Each INVALID candidate as a failure (never proposed again, not a run), then the runs told in order.
        The invalid ones come first: the engine reads the runs' order (its trust region counts a failure after
        the warm start as a miss), and a configuration that cannot run says nothing about the runs around it."""
        return [(i, None) for i in sorted(self.invalid)] + list(self.observations)

    def _normalised(self, workload: dict) -> dict:
        out: dict = {}
        for name, value in workload.items():
            if value is None:
                out[name] = value  # a parameter inactive for this workload (its `when:` rule is false)
                continue
            try:
                parameter = self.space.parameter(name)
            except (KeyError, SpaceError):
                out[name] = value  # a benchmark field the space does not vary (api, collective, ...)
                continue
            try:
                out[name] = parameter.normalise(value)
            except SpaceError as error:
                raise SamplerError(f"workload {name}: {error}") from None
        return out

    def _given(self, candidates: Sequence) -> list[Configuration]:
        """The candidates given, each once, checked to be configurations of this workload."""
        out: dict[str, Configuration] = {}
        for configuration in candidates:
            if not isinstance(configuration, Configuration):
                raise SamplerError(f"candidates are Configurations of the space, got {type(configuration).__name__}")
            if configuration.workload_key != self.workload_key:
                raise SamplerError(f"candidate {configuration.key} is not a configuration of workload "
                                   f"{self.workload}")
            out.setdefault(configuration.key, configuration)
        return list(out.values())

    def _prices(self, price, prior_rows: list[Configuration]):
        """The known price of each candidate (an array) and of every configuration the prior ran (by key)."""
        if price is None:
            self._row_prices = None
            return None
        import numpy as np

        prices = np.array([float(price(c)) for c in self.candidates])
        others = {c.key: c for c in prior_rows if c.key not in self.index}
        other_prices = np.array([float(price(c)) for c in others.values()])
        if not (np.isfinite(prices) & (prices > 0)).all() or not (np.isfinite(other_prices) & (other_prices > 0)).all():
            raise SamplerError("under --objective cost every candidate needs a positive price; the pricing file "
                               "prices some at 0")
        # the engine divides each prior run by its configuration's price, also where the target has no candidate
        rows = features(self.space, self.candidates + list(others.values()), "system")
        self._row_prices = {tuple(np.round(row, 9)): p for row, p in zip(rows, [*prices, *other_prices], strict=True)}
        return prices

    def _price_of_rows(self):
        """The price as a function of system feature rows (what the engine takes), or None."""
        if self._row_prices is None:
            return None
        import numpy as np

        table = self._row_prices
        return lambda rows: np.array([table[tuple(np.round(row, 9))] for row in np.asarray(rows, dtype=float)])

    def _prior(self, prior: Sequence):
        """The engine's Prior from (Configuration, Outcome) pairs of other workloads (one row per run of a
        COMPLETE outcome, so the engine sees the store's repeats and their noise; one failed row per FAILED
        one), the number of other workloads, and the configurations of its rows."""
        import numpy as np

        from iotune.transfer import Prior

        rows, values, failed, labels = [], [], [], []
        for item in prior:
            try:
                configuration, outcome = item
            except (TypeError, ValueError):
                raise SamplerError("a prior is (configuration, outcome) pairs of other workloads") from None
            if not isinstance(configuration, Configuration) or not isinstance(outcome, Outcome):
                raise SamplerError("a prior is (Configuration, Outcome) pairs of other workloads, got "
                                   f"({type(configuration).__name__}, {type(outcome).__name__})")
            if configuration.workload_key == self.workload_key or outcome.state == "INVALID":
                continue
            runs = (outcome.values or (outcome.value,)) if outcome.state == "COMPLETE" else (math.nan,)
            for value in runs:
                rows.append(configuration)
                values.append(value)
                failed.append(outcome.state != "COMPLETE")
                labels.append(configuration.workload_key)
        if not rows:
            return None, 0, []
        return (Prior(np.array(labels), features(self.space, rows, "system"), np.array(values), np.array(failed),
                      features(self.space, rows, "workload")), len(set(labels)), rows)

    def _why(self, pick: int, told) -> str:
        """Why ``pick`` is run next, naming the regime it came from (``TransferTuner.regime``)."""
        engine = self.engine
        if pick in {i for i, v in told if v is not None}:
            return AGAIN_REASON
        regime = engine.regime(told)
        if regime == "start":
            return WINNERS_REASON
        if regime == "failing":
            return "every run so far failed: the configuration farthest from the failures"
        mean, std = engine.expectation(told)  # log units
        expected = f"{_value(math.exp(mean[pick]), self.objective)} " \
                   f"({_interval(mean[pick], std[pick], self.objective)})"
        if regime == "explore":
            text = f"exploring: the prior has not predicted this workload's runs; the model expects {expected}"
        elif regime == "broad":
            text = f"exploring while the budget allows, where the model is least sure: it expects {expected}"
        elif regime == "prior":
            text = f"the other workloads' model, fitted to this workload's runs, expects {expected}"
            radius = engine.trust_radius(told)
            if math.isfinite(radius):
                text += (f"; kept within {radius:.2g} step(s) of the best run (a trust region: runs after the "
                         "warm start that did not beat the best narrow where the model may look)")
        else:
            text = f"the model expects {expected}"
        out = len(engine.ruled_out(told))
        if out:
            text += (f"; {out} candidate(s) ruled out by their price (they would have to run faster than "
                     f"best cost / price, more than {engine.bound_slack:g} times what any other workload sped up)")
        return text


def _interval(mean: float, std: float, objective: str) -> str:
    """The stated 95 % interval of a value whose log has ``mean`` and ``std`` (``TransferTuner.expectation``)."""
    # a statement that missed its runs by far is widened by far: its bound may lie beyond a float's range
    low, high = (_value(_exp(mean + side * 1.96 * std), objective) for side in (-1.0, 1.0))
    if objective == "bandwidth":  # the value is a time per MiB: its low end is the high bandwidth
        low, high = high, low
    return f"95 %: {low} to {high}"


def _exp(x: float) -> float:
    return math.inf if x > 709.0 else math.exp(x)


def _value(value: float, objective: str) -> str:
    if objective == "time":
        return f"{value:.4g} s"
    if objective == "bandwidth":
        return f"{1 / value:.4g} MiB/s" if value > 0 else "inf MiB/s"  # a time per MiB that underflowed to 0
    return f"{value:.4g}"
