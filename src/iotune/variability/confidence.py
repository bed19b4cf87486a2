"""Intervals and "separated" claims from few runs, with an honest estimate of the run-to-run noise.

A mean of n runs is only as certain as the runs are repeatable, and the
spread of one run says nothing about that.  The noise (standard deviation of
one run's natural log, so a relative spread) comes from, in this order:

1. repeats of the same workload (the runs being summarised: every
   configuration run more than once);
2. repeats elsewhere in the store (other workloads of the study, or the prior
   studies): the ``STORE_QUANTILE`` quantile of the workloads' pooled spreads
   (workloads differ: on the testbed table from 0.6 % to 2.2 %, on the hints
   table from 19 % to 74 %, and a typical one understates a noisy target),
   counted as at most ``STORE_DOF`` degrees of freedom, because another
   workload's noise is only a guide to this one's;
3. when neither holds a repeat: a stated conservative prior,
   ``PRIOR_SPREAD`` (a run within about x/1.6 .. x1.6 of its mean, two
   thirds of the time), wide enough for the small, start-up-dominated runs of
   a busy node (two runs of the same 4 MiB write: 0.0104 s and 0.0343 s),
   counted as ``MIN_DOF`` degrees of freedom.

While fewer than ``MIN_DOF`` degrees of freedom stand behind the estimate it
is pooled with the conservative prior for the missing ones, so that two close
runs cannot make a confident claim.  Intervals use Student's t with the
pooled degrees of freedom, so that more runs never widen an interval beyond
what their own spread says.

The interval of the best configuration's mean is widened for having been
picked as the lowest of ``m`` measured configurations (the winner's curse:
the lowest of m noisy means sits below its true mean): its quantile is the
Sidak-corrected one for m comparisons, (1 - (1 - confidence)^(1/m)).  The
gain interval (default / best) gets the same correction; "separated from the
runner-up" is said only when the interval of runner-up / best, so corrected,
lies above 1.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from iotune.analysis import student_t_quantile

PRIOR_SPREAD = 0.5
"""Conservative standard deviation of one run's log time when nothing is known (about ±50 %)."""
MIN_DOF = 2
"""Degrees of freedom below which the estimate is pooled with ``PRIOR_SPREAD`` for the missing ones (2: the
least that met the calibration targets, ``benchmarks/calibration.py``; 4 was as honest and much wider)."""
STORE_DOF = 4
"""Most degrees of freedom that other workloads' repeats count for."""
STORE_QUANTILE = 1.0
"""Which of the store's workloads' spreads stands for an unknown one (0.9: all but the noisiest tenth)."""
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Noise:
    """Run-to-run spread in log units, the degrees of freedom behind it (inf: a stated prior), and its source."""

    spread: float
    dof: float
    source: str
    prior_only: bool = False

    def quantile(self, confidence: float = CONFIDENCE, comparisons: int = 1) -> float:
        """Two-sided quantile for ``confidence``, Sidak-corrected for ``comparisons`` (see the module docstring)."""
        alpha = 1.0 - confidence ** (1.0 / max(1, comparisons))
        return _two_sided(1.0 - alpha / 2.0, self.dof)


@lru_cache(maxsize=1024)
def _two_sided(p: float, dof: float) -> float:
    return statistics.NormalDist().inv_cdf(p) if math.isinf(dof) else student_t_quantile(p, dof)


@dataclass(frozen=True)
class Interval:
    """A value (geometric mean of runs, or a ratio of two) and its interval, from ``runs`` runs."""

    value: float
    low: float
    high: float
    runs: int


def pooled(groups: Iterable[Sequence[float]]) -> tuple[float, int]:
    """(sum of squared deviations of log values from their group's mean, degrees of freedom) over groups of
    positive runs of one configuration; groups of one run add nothing."""
    squares, dof = 0.0, 0
    for group in groups:
        logs = [math.log(v) for v in group if v is not None and v > 0]
        if len(logs) > 1:
            mean = statistics.fmean(logs)
            squares += sum((x - mean) ** 2 for x in logs)
            dof += len(logs) - 1
    return squares, dof


def store_spread(store: Iterable[tuple[object, Sequence[float]]]) -> tuple[float, int]:
    """(The ``STORE_QUANTILE`` quantile of the workloads' pooled log spreads, degrees of freedom behind them)
    from (workload label, runs of one configuration) pairs; (0, 0) without a repeat."""
    by_workload: dict[object, list[Sequence[float]]] = {}
    for label, runs in store:
        by_workload.setdefault(label, []).append(runs)
    return spread_of_workloads([workload_spread(groups) for groups in by_workload.values()])


def workload_spread(groups: Iterable[Sequence[float]]) -> tuple[float, int]:
    """(Pooled spread of log values, degrees of freedom) of one workload's runs by configuration; (0, 0)
    without a repeat."""
    squares, dof = pooled(groups)
    return (math.sqrt(squares / dof), dof) if dof else (0.0, 0)


def spread_of_workloads(spreads: Iterable[tuple[float, int]]) -> tuple[float, int]:
    """:func:`store_spread` from each workload's :func:`workload_spread` (a caller deciding many workloads
    computes those once, not once per workload)."""
    spreads = [(spread, dof) for spread, dof in spreads if dof]
    if not spreads:
        return 0.0, 0
    return _quantile([spread for spread, _ in spreads], STORE_QUANTILE), sum(dof for _, dof in spreads)


def _quantile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` by linear interpolation between order statistics (numpy's default)."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def estimate_noise(own: Iterable[Sequence[float]], store: Iterable[tuple[object, Sequence[float]]] = (),
                   prior_spread: float = PRIOR_SPREAD, min_dof: int = MIN_DOF) -> Noise:
    """The noise of runs (module docstring): ``own`` the runs of this workload by configuration, ``store``
    other repeated runs as (workload label, runs of one configuration) pairs (other workloads, other
    studies); ``min_dof`` the degrees of freedom below which the prior fills in."""
    return noise_from(own, store_spread(store), prior_spread, min_dof)


def noise_from(groups: Iterable[Sequence[float]], elsewhere: tuple[float, int], prior_spread: float = PRIOR_SPREAD,
               min_dof: int = MIN_DOF, own: tuple[float, int] | None = None) -> Noise:
    """:func:`estimate_noise` with the store's part given as (spread, degrees of freedom), from
    :func:`spread_of_workloads`; ``own`` (sum of squares, degrees of freedom) replaces ``groups`` when given
    (the residuals of a paired design, :mod:`iotune.variability.estimate`)."""
    own_squares, own_dof = pooled(groups) if own is None else own
    spread_elsewhere, store_dof = elsewhere
    if own_dof + store_dof == 0:
        # counted as the ``min_dof`` degrees of freedom it fills in for once runs come, so that a run agreeing
        # with the others never widens an interval (with a normal quantile here, the first repeat did)
        return Noise(prior_spread, float(min_dof), f"no repeated run yet: a conservative prior of "
                     f"±{prior_spread:.0%} a run ({min_dof} degrees of freedom)", prior_only=True)
    weight = min(store_dof, STORE_DOF)
    squares = own_squares + spread_elsewhere**2 * weight
    dof = own_dof + weight
    missing = max(0, min_dof - dof)
    spread = math.sqrt((squares + prior_spread**2 * missing) / (dof + missing))
    parts = []
    if own_dof:
        parts.append(f"{own_dof} from this workload's repeats")
    if weight:
        parts.append(f"{weight} from other repeats in the store")
    if missing:
        parts.append(f"{missing} from a conservative prior of ±{prior_spread:.0%}")
    return Noise(spread, float(dof + missing), f"±{spread:.0%} a run ({' + '.join(parts)} degrees of freedom)")


def _logs(values: Sequence[float]) -> list[float]:
    logs = [math.log(v) for v in values if v is not None and v > 0]
    if not logs:
        raise ValueError("an interval needs at least one successful run")
    return logs


def mean_interval(values: Sequence[float], noise: Noise, confidence: float = CONFIDENCE,
                  comparisons: int = 1) -> Interval:
    """Geometric mean of ``values`` (positive runs) and its interval: mean x exp(± q s / sqrt(n))."""
    logs = _logs(values)
    half = noise.quantile(confidence, comparisons) * noise.spread / math.sqrt(len(logs))
    mean = math.exp(statistics.fmean(logs))
    return Interval(mean, mean * math.exp(-half), mean * math.exp(half), len(logs))


def ratio_interval(numerator: Sequence[float], denominator: Sequence[float], noise: Noise,
                   confidence: float = CONFIDENCE, comparisons: int = 1) -> Interval:
    """mean(numerator) / mean(denominator) (geometric means) and its interval: exp(± q s sqrt(1/n + 1/m))."""
    a, b = _logs(numerator), _logs(denominator)
    half = noise.quantile(confidence, comparisons) * noise.spread * math.sqrt(1 / len(a) + 1 / len(b))
    ratio = math.exp(statistics.fmean(a) - statistics.fmean(b))
    return Interval(ratio, ratio * math.exp(-half), ratio * math.exp(half), min(len(a), len(b)))


def separated(best: Sequence[float], other: Sequence[float], noise: Noise, confidence: float = CONFIDENCE,
              comparisons: int = 1) -> bool:
    """Whether ``best``'s runs are lower than ``other``'s beyond the noise: the interval of other / best is
    above 1."""
    return ratio_interval(other, best, noise, confidence, comparisons).low > 1.0
