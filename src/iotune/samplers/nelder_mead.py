"""Nelder-Mead simplex search (paper 004, Sec. IV: the "Simplex Method") on the box's continuous relaxation.

The simplex lives in the unit cube; a vertex's value is that of the grid point
whose cell holds it (``Grid.from_unit``), so the memo counts distinct grid
points only.  When the simplex has shrunk below one grid cell in every
dimension, or stalls, it restarts around a random point (first start: the
centre of the box).  Coefficients are the standard 1, 2, 1/2, 1/2.
"""

from __future__ import annotations

import numpy as np

from iotune.samplers.search import HeuristicSampler


class NelderMead(HeuristicSampler):
    """Restarting Nelder-Mead; ``step`` is the initial simplex edge in unit-cube coordinates."""

    name = "nelder-mead"
    description = "restarting Nelder-Mead simplex on the levels' continuous relaxation (paper 004, Sec. IV)"

    def __init__(self, space, *, seed=0, budget=None, step: float = 0.25, stall: int = 30):
        super().__init__(space, seed=seed, budget=budget)
        self.step, self.stall = step, stall

    def _value(self, u):
        return (yield self.grid.from_unit(u))

    def _search(self, rng):
        d = self.grid.ndim
        cell = 1.0 / self.grid.counts
        start = np.full(d, 0.5)
        while True:
            simplex = [start] + [np.clip(start + self.step * e * rng.choice((-1, 1)), 0, 1) for e in np.eye(d)]
            values = []
            for u in simplex:
                values.append((yield from self._value(u)))
            best_seen, idle = min(values), 0
            while idle < self.stall:
                order = np.argsort(values)
                simplex = [simplex[i] for i in order]
                values = [values[i] for i in order]
                spread = np.max(np.abs(np.array(simplex) - simplex[0]), axis=0)
                if np.all(spread < cell):
                    break
                centroid = np.mean(simplex[:-1], axis=0)
                worst = simplex[-1]
                reflected = np.clip(centroid + (centroid - worst), 0, 1)
                f_r = yield from self._value(reflected)
                if f_r < values[0]:
                    expanded = np.clip(centroid + 2.0 * (centroid - worst), 0, 1)
                    f_e = yield from self._value(expanded)
                    simplex[-1], values[-1] = (expanded, f_e) if f_e < f_r else (reflected, f_r)
                elif f_r < values[-2]:
                    simplex[-1], values[-1] = reflected, f_r
                else:
                    outside = f_r < values[-1]
                    contracted = centroid + 0.5 * ((reflected if outside else worst) - centroid)
                    f_c = yield from self._value(contracted)
                    if f_c < min(f_r, values[-1]):
                        simplex[-1], values[-1] = contracted, f_c
                    else:
                        for i in range(1, d + 1):
                            simplex[i] = simplex[0] + 0.5 * (simplex[i] - simplex[0])
                            values[i] = yield from self._value(simplex[i])
                if min(values) < best_seen:
                    best_seen, idle = min(values), 0
                else:
                    idle += 1
            start = rng.random(d)
