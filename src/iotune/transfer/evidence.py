"""What the target's own runs say about the prior: does it rank them right, does it fail as often, and what
a known price rules out.

Three checks the engine makes after every run, each a function of plain arrays:

- ``agreement``: Spearman's rank correlation between what the prior predicted
  before the target ran anything (the similarity-weighted consensus of the
  other workloads, price included) and what the target's runs gave.  A prior
  that ranks the target's runs no better than chance has not predicted this
  workload, whatever its experts fit after the fact.
- ``failing_more``: whether the target fails more often than the prior said
  it would at the very candidates it ran (a one-sided binomial tail, so two
  failures where the prior expected 0.1 count, two in ten where it expected
  two do not).
- ``time_bound``: under a cost = time x known price, candidate c can only beat
  the best cost so far if its time is below best / price(c).  Its time is
  bounded below by each measured candidate m's time times the largest speed-up
  from m to c that any other workload showed (divided by ``slack``, since a new
  workload may scale better than all of them).  A candidate whose lower bound is
  above the time it needs cannot be the optimum and is not worth a run.
"""

from __future__ import annotations

import math

import numpy as np


def agreement(predicted: np.ndarray, measured: np.ndarray) -> float | None:
    """Spearman's rho between the prior's predictions and the target's measured values at the same candidates
    (None with fewer than three, or when either side is constant)."""
    predicted, measured = np.asarray(predicted, dtype=float), np.asarray(measured, dtype=float)
    if len(measured) < 3 or np.ptp(predicted) == 0 or np.ptp(measured) == 0:
        return None
    from scipy.stats import spearmanr  # scipy.stats: loaded when used (half a second; a report may not need it)

    rho = spearmanr(predicted, measured).statistic
    return None if not np.isfinite(rho) else float(rho)


def failing_more(expected: np.ndarray, failures: int, level: float = 0.05) -> bool:
    """True when ``failures`` failed runs among runs whose prior failure chances are ``expected`` (one per run)
    are more than the prior explains: at least two, and a binomial tail (mean chance, as many runs) below
    ``level``."""
    expected = np.asarray(expected, dtype=float)
    runs = len(expected)
    if failures < 2 or runs == 0:
        return False
    from scipy.stats import binom

    chance = float(np.clip(expected.mean(), 1e-3, 1.0))
    return bool(binom.sf(failures - 1, runs, chance) < level)


def time_bound(level: np.ndarray, failed: np.ndarray, measured: np.ndarray, times: np.ndarray,
               slack: float = 2.0) -> np.ndarray:
    """Lower bound on the target's log time at every candidate (-inf where nothing bounds it).

    ``level`` (J, n): the other workloads' log times; ``failed`` (J, n): where they failed (not used);
    ``measured``: candidates the target ran, ``times``: its log times there.  For each measured m the bound
    at c is times[m] + min over workloads of (level[j, c] - level[j, m]) - log(slack); the largest over m.
    """
    n = level.shape[1]
    bound = np.full(n, -np.inf)
    if len(measured) == 0 or len(level) == 0:
        return bound
    usable = ~failed
    for m, y in zip(np.asarray(measured, dtype=int), np.asarray(times, dtype=float), strict=True):
        both = usable & usable[:, [m]]
        change = np.where(both, level - level[:, [m]], np.inf)
        fastest = change.min(axis=0)
        bound = np.maximum(bound, np.where(np.isfinite(fastest), y + fastest - math.log(slack), -np.inf))
    return bound
