"""Search heuristics as samplers: the base that turns a generator of grid points into ask/tell.

Paper 004 (Sec. IV) searches its tuning space with Nelder-Mead, simulated
annealing, a genetic algorithm and particle swarm optimisation, with a database
of past results "so that the search process can avoid redoing the test for an
existing result".  Here each heuristic writes ``_search(rng)``, a generator
that yields grid keys (:class:`~iotune.samplers.grid.Grid`) and receives each
key's value through ``send`` (lower is better).  The base class answers at
once, without proposing anything, a key whose configuration it was already
told (the memo: several keys can be one configuration when a parameter is
inactive) and a key that a constraint refuses (``inf``); every other key
becomes one proposal.  A failed or unrunnable configuration is ``inf`` to
the heuristic: penalised, never fatal.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Generator

import numpy as np

from iotune.samplers.base import Outcome, Sampler, SamplerError
from iotune.samplers.grid import Grid
from iotune.space import Configuration, Space

MAX_REPEATS = 2000
"""Consecutive keys answered without a proposal after which a heuristic counts as converged."""


class HeuristicSampler(Sampler):
    """Base of the search heuristics: one proposal at a time, each told before the next is asked."""

    batch = 1

    def __init__(self, space: Space, *, seed: int = 0, budget: int | None = None):
        super().__init__(space, seed=seed, budget=budget)
        self.grid = Grid(space)
        self.memo: dict[str, float] = {}
        self.best_key: tuple | None = None
        self.best_value = math.inf
        self._rng = np.random.default_rng(seed)
        self._gen: Generator[tuple, float, None] | None = None
        self._reply: float | None = None
        self._pending: tuple[tuple, Configuration] | None = None
        self._done = False

    @abstractmethod
    def _search(self, rng: np.random.Generator) -> Generator[tuple, float, None]:
        """Yield grid keys to evaluate; each yield receives the value told for it (lower is better)."""

    def _note(self, key: tuple, value: float) -> None:
        if value < self.best_value or self.best_key is None:
            self.best_key, self.best_value = key, value

    def ask(self, n: int = 1) -> list[Configuration]:
        self._want(n)
        if self._pending is not None:
            raise SamplerError(f"{self.name}: tell() the outcome of {self._pending[1].describe()} before asking again")
        if self._done or self.remaining == 0:
            return []
        if self._gen is None:
            self._gen = self._search(self._rng)
        answered = 0
        while answered < MAX_REPEATS:
            try:
                key = next(self._gen) if self._reply is None else self._gen.send(self._reply)
            except StopIteration:
                break
            key = tuple(int(i) for i in key)
            configuration = self.grid.configuration(key)
            if configuration is None or configuration.key in self.memo:
                self._reply = math.inf if configuration is None else self.memo[configuration.key]
                self._note(key, self._reply)
                answered += 1
                if len(self.memo) >= self.grid.size:
                    break
                continue
            self._pending = (key, configuration)
            return self._take([configuration], 1)
        self._done = True
        return []

    def _learn(self, configuration: Configuration, outcome: Outcome) -> None:
        value = outcome.penalised
        self.memo[configuration.key] = value
        if self._pending is not None and self._pending[1].key == configuration.key:
            key = self._pending[0]
            self._reply, self._pending = value, None
            self._note(key, value)
        else:  # told about a configuration it did not ask for (e.g. from another sampler): remembered only
            self._note(self.grid.key(configuration), value)

    def _restart_point(self, rng: np.random.Generator) -> tuple:
        """Where to start again: the best key so far, or a random one when nothing finite was seen yet."""
        if self.best_key is not None and math.isfinite(self.best_value):
            return self.best_key
        return self.grid.sample(rng)
