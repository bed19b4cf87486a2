"""Particle swarm optimisation in the unit cube (paper 004, Sec. IV; Kennedy and Eberhart 1995).

Each particle's value is that of the grid cell holding it.  Velocity update
v = w v + c1 r1 (personal best - x) + c2 r2 (swarm best - x) with the usual
w = 0.72, c1 = c2 = 1.49 (Clerc's constriction values); velocities are capped
at half the cube and positions clipped to it.  When every velocity has fallen
below half a grid cell the swarm has converged; it is scattered again, keeping
the best point found as one particle's memory.
"""

from __future__ import annotations

import numpy as np

from iotune.samplers.search import HeuristicSampler


class ParticleSwarm(HeuristicSampler):
    name = "pso"
    description = "particle swarm optimisation over the levels (paper 004, Sec. IV)"

    def __init__(self, space, *, seed=0, budget=None, particles: int = 12,
                 inertia: float = 0.72, c1: float = 1.49, c2: float = 1.49):
        super().__init__(space, seed=seed, budget=budget)
        self.particles, self.inertia, self.c1, self.c2 = particles, inertia, c1, c2

    def _search(self, rng):
        d = self.grid.ndim
        still = 0.5 / self.grid.counts
        x = rng.random((self.particles, d))
        v = rng.uniform(-0.25, 0.25, (self.particles, d))
        best_x, best_f = x.copy(), np.full(self.particles, np.inf)
        while True:
            if np.all(np.abs(v) < still):
                keep = np.argmin(best_f)
                best_x[0], best_f[0] = best_x[keep].copy(), best_f[keep]
                best_f[1:] = np.inf
                x = rng.random((self.particles, d))
                v = rng.uniform(-0.25, 0.25, (self.particles, d))
            for i in range(self.particles):
                f = yield self.grid.from_unit(x[i])
                if f < best_f[i]:
                    best_x[i], best_f[i] = x[i].copy(), f
            leader = best_x[np.argmin(best_f)]
            r1, r2 = rng.random((2, self.particles, d))
            v = self.inertia * v + self.c1 * r1 * (best_x - x) + self.c2 * r2 * (leader - x)
            v = np.clip(v, -0.5, 0.5)
            x = np.clip(x + v, 0.0, 1.0)
