"""Genetic algorithm on the grid (paper 004, Sec. IV; Holland 1975).

Binary tournaments pick parents, uniform crossover mixes their level indices,
each gene mutates with probability 1/ndim (a normal step of an eighth of its
levels, or a fresh level for a categorical), and the ``elite`` best survive
unchanged.  Values come from the memo when a child repeats a known point.
"""

from __future__ import annotations

import numpy as np

from iotune.samplers.search import HeuristicSampler


class GeneticAlgorithm(HeuristicSampler):
    name = "genetic"
    description = "a genetic algorithm over the levels (paper 004, Sec. IV)"

    def __init__(self, space, *, seed=0, budget=None, population: int = 16, elite: int = 2):
        super().__init__(space, seed=seed, budget=budget)
        self.population, self.elite = population, elite

    def _mutate(self, genes, rng):
        counts = self.grid.counts
        out = np.array(genes)
        for i in range(self.grid.ndim):
            if rng.random() < 1.0 / len(counts):
                if self.grid.categorical[i]:
                    out[i] = rng.integers(counts[i])
                else:
                    out[i] += int(np.rint(rng.normal(0.0, max(counts[i] / 8.0, 1.0)))) or rng.choice((-1, 1))
        return self.grid.clip(out)

    def _search(self, rng):
        people = [self.grid.sample(rng) for _ in range(self.population)]
        scores = []
        for key in people:
            scores.append((yield key))
        while True:
            order = np.argsort(scores)
            children = [people[i] for i in order[: self.elite]]
            child_scores = [scores[i] for i in order[: self.elite]]
            while len(children) < self.population:
                a, b = (min(rng.choice(len(people), 2, replace=False), key=scores.__getitem__) for _ in range(2))
                mask = rng.random(self.grid.ndim) < 0.5
                child = self._mutate(np.where(mask, people[a], people[b]), rng)
                children.append(child)
                child_scores.append((yield child))
            people, scores = children, child_scores
