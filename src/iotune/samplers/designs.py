"""Designs: samplers that choose what to measure without looking at results.

``full`` (every valid configuration), ``random`` (distinct configurations drawn
uniformly), ``lhs`` (a Latin hypercube over the level indices) and ``list`` (a
given list, e.g. the demo's).  Each is proposed whole when asked (``batch``
None), so that repeats interleave over the whole design: every configuration
once, then every configuration again, and slow drift of a shared machine
spreads evenly instead of biasing the configurations measured last.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import numpy as np

from iotune.samplers.base import Sampler
from iotune.samplers.grid import Grid
from iotune.space import Configuration, Space

ENUMERATE_LIMIT = 100_000
"""Spaces of at most this many assignments are enumerated; larger ones are sampled by rejection."""
MAX_DRAWS = 1_000_000
"""Random draws a sampler spends looking for a new valid configuration before it says it is done."""


class DesignSampler(Sampler):
    """A fixed list of distinct configurations, proposed in order (shuffled by ``seed`` when ``shuffle``)."""

    name = "list"
    batch = None
    description = "a given list of configurations"

    def __init__(self, space: Space, configurations: Sequence[Configuration] = (), *, seed: int = 0,
                 budget: int | None = None, shuffle: bool = False):
        super().__init__(space, seed=seed, budget=budget)
        unique = list({c.key: c for c in configurations}.values())
        if shuffle:
            random.Random(seed).shuffle(unique)
        self.configurations = unique
        self._next = 0

    def ask(self, n: int = 1) -> list[Configuration]:
        chosen = self._take(self.configurations[self._next:self._next + n], n)
        self._next += len(chosen)
        return chosen


class GridSampler(DesignSampler):
    """Every valid configuration of the space (the full factorial), in a seeded random order."""

    name = "full"
    description = "every valid configuration (full factorial), in a seeded random order"

    def __init__(self, space: Space, *, seed: int = 0, budget: int | None = None, shuffle: bool = True):
        super().__init__(space, space.full_factorial(), seed=seed, budget=budget, shuffle=shuffle)


class RandomSampler(Sampler):
    """Distinct valid configurations drawn uniformly at random (paper 004, Sec. IV: "random search")."""

    name = "random"
    batch = None
    description = "distinct valid configurations drawn uniformly at random"

    def __init__(self, space: Space, *, seed: int = 0, budget: int | None = None):
        super().__init__(space, seed=seed, budget=budget)
        self._stream = self._draws()

    def _draws(self) -> Iterator[Configuration]:
        if self.space.size <= ENUMERATE_LIMIT:
            pool = list(self.space.enumerate())
            random.Random(self.seed).shuffle(pool)
            yield from pool
            return
        grid, rng, seen, misses = Grid(self.space), np.random.default_rng(self.seed), set(), 0
        while misses < MAX_DRAWS:
            configuration = grid.configuration(grid.sample(rng))
            if configuration is None or configuration.key in seen:
                misses += 1
                continue
            misses = 0
            seen.add(configuration.key)
            yield configuration

    def ask(self, n: int = 1) -> list[Configuration]:
        want = self._want(n)
        drawn: list[Configuration] = []
        while len(drawn) < want:
            configuration = next(self._stream, None)
            if configuration is None:
                break
            drawn.append(configuration)
        return self._take(drawn, n)


class LatinHypercubeSampler(Sampler):
    """A scrambled Latin hypercube over the level indices (scipy.stats.qmc), ``budget`` points at a time.

    Each batch puts one point in each of ``budget`` equal slices of every
    parameter's levels; points that a constraint refuses or that repeat a
    configuration are replaced by further hypercube points.
    """

    name = "lhs"
    batch = None
    description = "a Latin hypercube over the levels of every parameter"

    def __init__(self, space: Space, *, seed: int = 0, budget: int | None = None):
        super().__init__(space, seed=seed, budget=budget)
        self._grid = Grid(space)
        self._seen: set[str] = set()
        from scipy.stats import qmc  # imported here: scipy.stats takes ~1 s, and every command imports samplers

        self._engine = qmc.LatinHypercube(d=max(self._grid.ndim, 1), seed=np.random.default_rng(seed))

    def ask(self, n: int = 1) -> list[Configuration]:
        want = self._want(n)
        chosen: list[Configuration] = []
        batch = self.budget or max(n, 16)
        for _ in range(64 if want else 0):
            if len(chosen) >= want:
                break
            for u in self._engine.random(batch):
                configuration = self._grid.configuration(self._grid.from_unit(u[:self._grid.ndim]))
                if configuration is not None and configuration.key not in self._seen:
                    self._seen.add(configuration.key)
                    chosen.append(configuration)
                    if len(chosen) >= want:
                        break
        return self._take(chosen, n)
