"""Simulated annealing on the grid (paper 004, Sec. IV; Kirkpatrick et al. 1983).

A neighbour moves each dimension with probability 1/ndim (at least one) by a
normal step of ``scale`` times its number of levels, the scale shrinking with
the temperature.  A worse value is accepted with probability
exp(-(f_new - f_cur) / (T |f_cur|)): the temperature is relative, so the
schedule does not depend on the objective's units.  T falls geometrically from
``t_start`` to ``t_end`` over ``budget`` proposals (``steps`` when unlimited),
then the search reheats from the best point (a random one while no run has succeeded).
A failed configuration's value is ``inf``: a move to it is never accepted, and
from an ``inf`` start any move is.
"""

from __future__ import annotations

import numpy as np

from iotune.samplers.search import HeuristicSampler


class SimulatedAnnealing(HeuristicSampler):
    name = "annealing"
    description = "simulated annealing over the levels (paper 004, Sec. IV)"

    def __init__(self, space, *, seed=0, budget=None, t_start: float = 0.3, t_end: float = 1e-3, steps: int = 200):
        super().__init__(space, seed=seed, budget=budget)
        self.t_start, self.t_end, self.steps = t_start, t_end, steps

    def _neighbour(self, key, rng, fraction):
        counts = self.grid.counts
        move = rng.random(len(counts)) < 1.0 / len(counts)
        move[rng.integers(len(counts))] = True
        step = np.rint(rng.normal(0.0, np.maximum(fraction * counts, 0.6)))
        step[step == 0] = rng.choice((-1, 1), size=int(np.sum(step == 0)))
        return self.grid.clip(np.asarray(key) + np.where(move, step, 0))

    def _search(self, rng):
        current = self.grid.sample(rng)
        f_cur = yield current
        while True:
            length = max(self.budget or self.steps, 2)
            for i in range(length):
                temperature = self.t_start * (self.t_end / self.t_start) ** (i / (length - 1))
                candidate = self._neighbour(current, rng, 0.5 * temperature / self.t_start)
                f_new = yield candidate
                if _accept(f_cur, f_new, temperature, rng):
                    current, f_cur = candidate, f_new
            current = self._restart_point(rng)
            f_cur = self.best_value if current == self.best_key else np.inf


def _accept(f_cur: float, f_new: float, temperature: float, rng) -> bool:
    """Metropolis rule on the relative change; a failed (inf) candidate is refused, an inf start always left."""
    if f_new <= f_cur:
        return True
    if not np.isfinite(f_new):
        return False
    delta = (f_new - f_cur) / max(abs(f_cur), 1e-300)
    return bool(rng.random() < np.exp(-delta / temperature))
