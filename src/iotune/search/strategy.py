"""The ask/tell interface shared by every search heuristic, and the loop that drives it.

A strategy proposes points of a ``Box`` (``ask``) and learns their values
(``tell``; lower is better).  Subclasses write ``_search(rng)``, a generator
that yields keys (tuples of level indices) and receives each key's value
through ``send``.  The base class answers a key already in the memo at once,
without counting an evaluation, so ``evaluations`` counts distinct points only
(paper 004, Sec. IV: past results are stored "so that the search process can
avoid redoing the test for an existing result").
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
import numbers
from collections.abc import Callable, Generator
from dataclasses import dataclass, field

import numpy as np

from iotune.search.errors import SearchError
from iotune.search.memo import Memo
from iotune.search.space import Box

# Consecutive proposals answered from the memo after which a strategy counts as converged.
MAX_REPEATS = 2000


@dataclass
class SearchResult:
    """Outcome of ``optimize``: best point and value, distinct evaluations, and (point, value) in order."""

    best_point: dict | None
    best_value: float
    evaluations: int
    history: list[tuple[dict, float]] = field(default_factory=list)


class Strategy(ABC):
    """Base of the search heuristics.

    ``budget`` caps distinct evaluations (None: unlimited); ``seed`` fixes the
    random stream; ``memo`` may be shared with earlier searches.
    """

    name = "strategy"

    def __init__(self, box: Box, *, seed: int = 0, budget: int | None = None, memo: Memo | None = None):
        if not isinstance(box, Box):
            raise SearchError(f"box must be a Box, got {type(box).__name__}")
        self.box = box
        self.seed = seed
        self.budget = budget
        self.memo = Memo() if memo is None else memo
        self.evaluations = 0
        self.best_key: tuple | None = None
        self.best_value = math.inf
        self._rng = np.random.default_rng(seed)
        self._gen: Generator | None = None
        self._reply: float | None = None
        self._pending: tuple | None = None
        self._done = False

    @property
    def budget(self) -> int | None:
        return self._budget

    @budget.setter
    def budget(self, value) -> None:
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1):
            raise SearchError(f"budget must be an integer >= 1 or None, got {value!r}")
        self._budget = value

    @abstractmethod
    def _search(self, rng: np.random.Generator) -> Generator[tuple, float, None]:
        """Yield grid keys to evaluate; each yield receives the value told for it (lower is better)."""

    def _note(self, key: tuple, value: float) -> None:
        if value < self.best_value:
            self.best_key, self.best_value = key, value

    def ask(self) -> dict | None:
        """The next point to evaluate, or None when the budget is spent or the strategy has converged."""
        if self._pending is not None:
            raise SearchError("tell() the value of the last point before asking for another")
        if self._done or (self.budget is not None and self.evaluations >= self.budget):
            return None
        if self._gen is None:
            self._gen = self._search(self._rng)
        repeats = 0
        while repeats < MAX_REPEATS:
            try:
                key = next(self._gen) if self._reply is None else self._gen.send(self._reply)
            except StopIteration:
                break
            key = tuple(int(i) for i in key)
            if key in self.memo:
                self._reply = self.memo[key]
                self._note(key, self._reply)
                repeats += 1
                if len(self.memo) >= self.box.size:
                    break
                continue
            self._pending = key
            return self.box.point(key)
        self._done = True
        return None

    def tell(self, point: dict, value: float) -> None:
        """The value (lower is better) of the point last returned by ``ask``."""
        key = self.box.key(point)
        if key != self._pending:
            asked = None if self._pending is None else self.box.point(self._pending)
            raise SearchError(f"tell() got {point!r}, but the point asked for was {asked!r}")
        value = float(value)
        if math.isnan(value):
            raise SearchError(f"value of {point!r} is NaN; report failures as +inf")
        self.memo.record(key, value)
        self.evaluations += 1
        self._note(key, value)
        self._reply, self._pending = value, None

    @property
    def best_point(self) -> dict | None:
        return None if self.best_key is None else self.box.point(self.best_key)


def optimize(strategy: Strategy, evaluate: Callable[[dict], float], budget: int | None = None) -> SearchResult:
    """Ask, evaluate and tell until ``budget`` distinct evaluations (sets ``strategy.budget``) or convergence."""
    if budget is not None:
        strategy.budget = budget
    if strategy.budget is None and strategy.box.size > 10**6:
        raise SearchError("give a budget: the box has more than a million points")
    history = []
    while (point := strategy.ask()) is not None:
        value = float(evaluate(point))
        strategy.tell(point, value)
        history.append((point, value))
    return SearchResult(strategy.best_point, strategy.best_value, strategy.evaluations, history)
