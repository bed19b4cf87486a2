"""Space walks over a configuration space: PB-guided and random (paper 000, Section 5.5).

Both take ``evaluate(configuration) -> float`` (lower is better: seconds, or a
model's prediction), so they run on a model as well as on real measurements.
Each distinct configuration is evaluated once and counts once against the
budget.

The PB-guided walk tunes one parameter at a time in rank order: for each, try
its levels with the others fixed at the best so far, keep the best.  Paper
000's "random walk" is that same walk with a random parameter order
(``pb_guided_walk(space, shuffled_names, ...)``); :func:`random_walk` is the
plainer baseline of evaluating random valid configurations.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from iotune.errors import SpaceError
from iotune.screening.errors import ScreeningError
from iotune.space import Configuration, Space

Evaluate = Callable[[Configuration], float]


@dataclass
class WalkResult:
    """The best configuration found, its value and every evaluation in order."""

    best: Configuration
    best_value: float
    history: list[tuple[Configuration, float]] = field(default_factory=list)

    @property
    def evaluations(self) -> int:
        return len(self.history)

    def evaluations_to(self, value: float, tolerance: float = 1e-12) -> int | None:
        """How many evaluations the walk took to first reach ``value`` (or better), None if never."""
        for count, (_, seen) in enumerate(self.history, start=1):
            if seen <= value + tolerance:
                return count
        return None


class _Evaluator:
    def __init__(self, evaluate: Evaluate, budget: int | None):
        if budget is not None and (not isinstance(budget, int) or budget < 1):
            raise ScreeningError(f"a walk's budget must be a whole number >= 1 or None, got {budget!r}")
        self.evaluate, self.budget = evaluate, budget
        self.seen: dict[str, float] = {}
        self.history: list[tuple[Configuration, float]] = []
        self.best: tuple[Configuration, float] | None = None

    @property
    def exhausted(self) -> bool:
        return self.budget is not None and len(self.history) >= self.budget

    def __call__(self, configuration: Configuration) -> float:
        if configuration.key not in self.seen:
            value = float(self.evaluate(configuration))
            self.seen[configuration.key] = value
            self.history.append((configuration, value))
            if self.best is None or value < self.best[1]:
                self.best = (configuration, value)
        return self.seen[configuration.key]

    def result(self) -> WalkResult:
        if self.best is None:
            raise ScreeningError("the walk found no valid configuration to evaluate")
        return WalkResult(self.best[0], self.best[1], self.history)


def pb_guided_walk(space: Space, ranking: Sequence[str], evaluate: Evaluate, budget: int | None = None) -> WalkResult:
    """One pass over ``ranking`` (most influential first), from the default configuration; see the module doc."""
    evaluator = _Evaluator(evaluate, budget)
    best = space.configuration({})
    best_value = evaluator(best)
    for name in ranking:
        for level in space.parameter(name).levels:
            if evaluator.exhausted:
                return evaluator.result()
            try:
                candidate = space.configuration({**best.to_dict(), name: level})
            except SpaceError:
                continue
            value = evaluator(candidate)
            if value < best_value:
                best, best_value = candidate, value
    return evaluator.result()


def random_walk(space: Space, evaluate: Evaluate, budget: int, seed: int = 0) -> WalkResult:
    """Evaluate ``budget`` distinct valid configurations drawn at random (seeded); keep the best."""
    if not isinstance(budget, int) or budget < 1:
        raise ScreeningError(f"a walk's budget must be a whole number >= 1, got {budget!r}")
    configurations = space.sample(budget, seed=seed)
    random.Random(seed).shuffle(configurations)
    evaluator = _Evaluator(evaluate, budget)
    for configuration in configurations:
        evaluator(configuration)
    return evaluator.result()
