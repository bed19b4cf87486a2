"""Simulated annealing on the grid (paper 004, Sec. IV; Kirkpatrick et al. 1983).

A neighbour moves each dimension with probability 1/ndim (at least one) by a
normal step of ``scale`` times its number of levels, the scale shrinking with
the temperature.  A worse value is accepted with probability
exp(-(f_new - f_cur) / (T |f_cur|)): the temperature is relative, so the
schedule does not depend on the objective's units.  T falls geometrically from
``t_start`` to ``t_end`` over ``budget`` proposals (``steps`` when unlimited),
then the search reheats from the best point.
"""

from __future__ import annotations

import numpy as np

from iotune.search.strategy import Strategy


class SimulatedAnnealing(Strategy):
    name = "annealing"

    def __init__(self, box, *, seed=0, budget=None, memo=None, t_start: float = 0.3, t_end: float = 1e-3,
                 steps: int = 200):
        super().__init__(box, seed=seed, budget=budget, memo=memo)
        self.t_start, self.t_end, self.steps = t_start, t_end, steps

    def _neighbour(self, key, rng, fraction):
        counts = self.box.counts
        move = rng.random(len(counts)) < 1.0 / len(counts)
        move[rng.integers(len(counts))] = True
        step = np.rint(rng.normal(0.0, np.maximum(fraction * counts, 0.6)))
        step[step == 0] = rng.choice((-1, 1), size=int(np.sum(step == 0)))
        return self.box.clip(np.asarray(key) + np.where(move, step, 0))

    def _search(self, rng):
        current = self.box.sample(rng)
        f_cur = yield current
        while True:
            length = max(self.budget or self.steps, 2)
            for i in range(length):
                temperature = self.t_start * (self.t_end / self.t_start) ** (i / (length - 1))
                candidate = self._neighbour(current, rng, 0.5 * temperature / self.t_start)
                f_new = yield candidate
                delta = (f_new - f_cur) / max(abs(f_cur), 1e-300)
                if delta <= 0 or rng.random() < np.exp(-delta / temperature):
                    current, f_cur = candidate, f_new
            current, f_cur = self.best_key, self.best_value
