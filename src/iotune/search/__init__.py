"""Search heuristics over a discrete box behind one ask/tell interface (paper 004, Sec. IV).

``Box`` of ``Integer`` / ``Log2Integer`` / ``Categorical`` dimensions; a
``Strategy`` proposes with ``ask`` and learns with ``tell``; a ``Memo`` (the
paper's database of past results) guarantees no point is evaluated twice;
``optimize`` drives a strategy against a function for a budget of distinct
evaluations.  ``make_strategy`` builds one by name from ``STRATEGIES``.
"""

from iotune.search.annealing import SimulatedAnnealing
from iotune.search.errors import SearchError
from iotune.search.genetic import GeneticAlgorithm
from iotune.search.memo import Memo
from iotune.search.nelder_mead import NelderMead
from iotune.search.pso import ParticleSwarm
from iotune.search.sampling import LatinHypercube, RandomSearch
from iotune.search.space import Box, Categorical, Integer, Log2Integer
from iotune.search.strategy import SearchResult, Strategy, optimize

STRATEGIES = {
    cls.name: cls
    for cls in (RandomSearch, LatinHypercube, NelderMead, SimulatedAnnealing, GeneticAlgorithm, ParticleSwarm)
}
"""Strategy classes by their CLI name."""


def make_strategy(name: str, box: Box, *, seed: int = 0, budget: int | None = None, memo: Memo | None = None):
    """The strategy called ``name`` (a key of STRATEGIES)."""
    if name not in STRATEGIES:
        raise SearchError(f"strategy must be one of {', '.join(STRATEGIES)}, got {name!r}")
    return STRATEGIES[name](box, seed=seed, budget=budget, memo=memo)


__all__ = [
    "STRATEGIES",
    "Box",
    "Categorical",
    "GeneticAlgorithm",
    "Integer",
    "LatinHypercube",
    "Log2Integer",
    "Memo",
    "NelderMead",
    "ParticleSwarm",
    "RandomSearch",
    "SearchError",
    "SearchResult",
    "SimulatedAnnealing",
    "Strategy",
    "make_strategy",
    "optimize",
]
