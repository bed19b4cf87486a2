"""Random search and Latin hypercube sampling over a ``Box`` (paper 004, Sec. IV: the "Random search method")."""

from __future__ import annotations

from scipy.stats import qmc

from iotune.search.strategy import Strategy


class RandomSearch(Strategy):
    """Uniform draws over the grid; a repeat costs nothing (memo)."""

    name = "random"

    def _search(self, rng):
        while True:
            yield self.box.sample(rng)


class LatinHypercube(Strategy):
    """Scrambled Latin hypercube designs (scipy.stats.qmc), one batch of ``batch`` points after another.

    Each batch puts one point in each of ``batch`` equal slices of every
    dimension's unit interval; by default the batch is the budget (16 if unlimited).
    """

    name = "lhs"

    def __init__(self, box, *, seed=0, budget=None, memo=None, batch: int | None = None):
        super().__init__(box, seed=seed, budget=budget, memo=memo)
        self.batch = batch

    def _search(self, rng):
        sampler = qmc.LatinHypercube(d=self.box.ndim, seed=rng)
        while True:
            for u in sampler.random(self.batch or self.budget or 16):
                yield self.box.from_unit(u)
