"""Plackett-Burman samplers (paper 000, Sec. 4.1 and 5.5): screen, then collect or walk in rank order.

- ``screening``: the foldover Plackett-Burman design of the spec's screening
  factors (``screening: levels:``; first and last level by default), its rows
  in a seeded random order.  The study records the design so that the ranking
  can be recomputed from its trials (:func:`iotune.screening.load_screen`).
- ``pb-collect``: "ACIC populates its training database by sampling the
  top-ranked parameters first (adopting default settings for the other
  parameters), then gradually expands training data collection to the
  lower-ranked dimensions" (:func:`iotune.screening.pb_guided_configurations`).
- ``pb-walk``: tune one parameter at a time in rank order, from the default
  configuration: try its levels with the others at the best so far, keep the
  best (paper 000's space walk).

Both guided samplers take the ranking as the option ``ranking`` (parameter
names, most influential first); without it they first measure the screening
design and rank its factors by |effect| on the objective, and the screening
rows count against the budget.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Sequence

from iotune.errors import SpaceError
from iotune.samplers.base import Outcome, Sampler, SamplerError
from iotune.samplers.designs import DesignSampler
from iotune.screening.collect import pb_guided_configurations
from iotune.screening.design import build_design
from iotune.screening.effects import rank_design
from iotune.screening.factors import screening_factors
from iotune.space import Configuration, Space


class ScreeningSampler(DesignSampler):
    """The foldover PB design of the screening factors, in a seeded random order (paper 000, Sec. 4.1)."""

    name = "screening"
    description = "a foldover Plackett-Burman screening design (paper 000, Sec. 4.1)"

    def __init__(self, space: Space, *, seed: int = 0, budget: int | None = None, levels: dict | None = None,
                 system_only: bool = False, benchmark: dict | None = None):
        factors = screening_factors(space, system_only, levels)
        self.design = build_design(space, factors, benchmark)
        super().__init__(space, self.design.run_order(seed), seed=seed, budget=budget)
        if budget is not None and budget < len(self.configurations):
            raise SamplerError(f"the screening design has {len(self.configurations)} distinct rows; a budget of "
                               f"{budget} cannot hold it")

    def ranking(self) -> list[str]:
        """Factor names by |effect| on the told values, most influential first (a failed row counts as the worst)."""
        values = [self.told[row.key].penalised if row.key in self.told else math.inf for row in self.design.rows]
        finite = [v for v in values if math.isfinite(v)]
        if not finite:
            return [factor.name for factor in self.design.factors]
        worst = max(finite)
        return rank_design(self.design, [v if math.isfinite(v) else worst for v in values]).ranking

    def record(self) -> dict:
        return {**super().record(), "design": self.design.to_dict()["design"], "screening": self.design.to_dict()}


class _Guided(Sampler):
    """Screen first unless given a ``ranking``, then propose what the subclass's second phase chooses."""

    def __init__(self, space: Space, *, seed: int = 0, budget: int | None = None, ranking: Sequence[str] | None = None,
                 levels: dict | None = None, system_only: bool = False, benchmark: dict | None = None):
        super().__init__(space, seed=seed, budget=budget)
        self.benchmark = benchmark
        self.screen: ScreeningSampler | None = None
        self.ranking: list[str] | None
        if ranking is not None:
            unknown = [name for name in ranking if name not in {p.name for p in space.parameters}]
            if unknown:
                raise SamplerError(f"{self.name}: ranking names unknown parameter(s) {', '.join(unknown)}")
            self.ranking = list(ranking)
        else:
            self.screen = ScreeningSampler(space, seed=seed, budget=budget, levels=levels, system_only=system_only,
                                           benchmark=benchmark)
            self.ranking = None

    def _screening(self, n: int) -> list[Configuration] | None:
        """Rows of the screening design still to propose; None once screening is over and ranked."""
        screen = self.screen
        if self.ranking is not None or screen is None:  # screen is None only when a ranking was given
            return None
        rows = screen.ask(n) if screen.remaining != 0 else []
        if rows:
            self.proposed += len(rows)
            return rows
        if any(row.key not in screen.told for row in screen.design.rows):
            return []  # wait for every row's outcome before ranking
        self.ranking = screen.ranking()
        return None

    def _ranked(self) -> list[str]:
        """The parameters by rank, given or screened (once :meth:`_screening` returned None)."""
        if self.ranking is None:
            raise SamplerError(f"{self.name}: no ranking before the screening is over")
        return self.ranking

    def _learn(self, configuration: Configuration, outcome: Outcome) -> None:
        if self.screen is not None:
            self.screen.tell(configuration, outcome)

    def _runnable(self, configuration: Configuration) -> bool:
        if self.benchmark is None:
            return True
        from iotune.spec.mapping import benchmark_spec

        try:
            benchmark_spec(self.space, configuration, self.benchmark)
        except SpaceError:
            return False
        return True

    def record(self) -> dict:
        out = {**super().record(), "ranking": self.ranking}
        if self.screen is not None:
            out["screening"] = self.screen.design.to_dict()
        return out


class PBCollectSampler(_Guided):
    """PB-guided data collection: the top-ranked parameters first, the others at their defaults."""

    name = "pb-collect"
    batch = None
    description = "PB-guided collection: top-ranked parameters first (paper 000, Sec. 4.1)"

    def ask(self, n: int = 1) -> list[Configuration]:
        self._want(n)
        rows = self._screening(n)
        if rows is not None:
            return rows
        if not hasattr(self, "_collection"):
            budget = self.remaining if self.remaining is not None else 10**6
            told = set(self.told)
            chosen = pb_guided_configurations(self.space, self._ranked(), budget + len(told), self.seed,
                                              accept=self._runnable)
            self._collection = [c for c in chosen if c.key not in told][:budget]
        chosen, self._collection = self._collection[:n], self._collection[n:]
        return self._take(chosen, n)


class PBWalkSampler(_Guided):
    """PB-guided space walk: one parameter at a time in rank order, from the default configuration."""

    name = "pb-walk"
    batch = 1
    description = "PB-guided walk: tune one parameter at a time in rank order (paper 000, Sec. 5.5)"

    def __init__(self, space: Space, *, seed: int = 0, budget: int | None = None, ranking: Sequence[str] | None = None,
                 levels: dict | None = None, system_only: bool = False, benchmark: dict | None = None):
        super().__init__(space, seed=seed, budget=budget, ranking=ranking, levels=levels, system_only=system_only,
                         benchmark=benchmark)
        self._walk: Generator[Configuration, None, None] | None = None
        self._pending: Configuration | None = None

    def ask(self, n: int = 1) -> list[Configuration]:
        self._want(n)
        rows = self._screening(n)
        if rows is not None:
            return rows
        if self._pending is not None:
            raise SamplerError(f"pb-walk: tell() the outcome of {self._pending.describe()} before asking again")
        if self._walk is None:
            self._walk = self._steps()
        if self.remaining == 0:
            return []
        step = next(self._walk, None)
        if step is None:
            return []
        self._pending = step
        return self._take([step], 1)

    def _learn(self, configuration: Configuration, outcome: Outcome) -> None:
        super()._learn(configuration, outcome)
        if self._pending is not None and self._pending.key == configuration.key:
            self._pending = None

    def _value(self, configuration: Configuration) -> float:
        return self.told[configuration.key].penalised

    def _steps(self) -> Generator[Configuration, None, None]:
        """Configurations of the walk not told yet, one at a time; told ones are answered from memory."""
        best = self.space.configuration({})
        if best.key not in self.told:
            yield best
        for name in self._ranked():
            for level in self.space.parameter(name).levels:
                try:
                    candidate = self.space.configuration({**best.to_dict(), name: level})
                except SpaceError:
                    continue
                if candidate.key not in self.told:
                    if not self._runnable(candidate):
                        continue
                    yield candidate
                if candidate.key in self.told and self._value(candidate) < self._value(best):
                    best = candidate
