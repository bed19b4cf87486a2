"""Spread of one configuration's runs: n, mean, standard deviation, cv, quantiles, bimodality.

The standard deviation of the runs is MOANA's variability measure (paper 003,
Section 2.1, footnote 1); units are those of the runs (seconds for trial times).

Bimodality uses Sarle's bimodality coefficient (SAS Institute, SAS/STAT User's
Guide, 1990; Pfister et al., "Good things peak in pairs", Frontiers in
Psychology 4:700, 2013):

    b = (g^2 + 1) / (k + 3 (n-1)^2 / ((n-2)(n-3)))

with g the bias-corrected sample skewness and k the bias-corrected sample
excess kurtosis; b > 5/9 (the value of a uniform distribution) flags a
bimodal sample.  It needs n >= 4 and a non-zero spread, otherwise b is NaN and
the flag False.  A normal sample gives b near 1/3, two well separated equal
modes near 1.  Known weakness (Pfister et al.): strongly skewed unimodal samples
(e.g. exponential, b = 5/9 in the limit) sit at the threshold.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from iotune.variability.errors import VariabilityError

BIMODAL_THRESHOLD = 5.0 / 9.0
QUANTILES = (0.05, 0.25, 0.50, 0.75, 0.95)


def bimodality_coefficient(samples) -> float:
    """Sarle's b of a sample (see the module docstring); NaN when n < 4 or every value is equal."""
    x = np.asarray(samples, dtype=np.float64)
    n = x.size
    if n < 4 or np.ptp(x) <= 1e-12 * max(1.0, float(np.abs(x).max())):
        return float("nan")
    # Bias-corrected skewness G1 and excess kurtosis G2 from the central moments, as scipy's skew and kurtosis
    # with bias=False compute them, written out because scipy's per-call overhead (~5 ms) dominated reports.
    d = x - x.mean()
    m2, m3, m4 = float(np.mean(d ** 2)), float(np.mean(d ** 3)), float(np.mean(d ** 4))
    g = m3 / m2 ** 1.5 * math.sqrt(n * (n - 1)) / (n - 2)
    k = ((n + 1) * (m4 / m2 ** 2 - 3.0) + 6.0) * (n - 1) / ((n - 2) * (n - 3))
    return float((g * g + 1.0) / (k + 3.0 * (n - 1) ** 2 / ((n - 2) * (n - 3))))


def is_bimodal(samples) -> bool:
    """True when Sarle's bimodality coefficient exceeds 5/9."""
    b = bimodality_coefficient(samples)
    return bool(np.isfinite(b) and b > BIMODAL_THRESHOLD)


@dataclass(frozen=True)
class Spread:
    """Summary of one configuration's runs (units of the runs; cv and bimodality are unitless).

    ``std`` is the sample standard deviation (ddof = 1, 0 for one run);
    ``cv`` = std / mean (NaN when the mean is 0); ``q05`` ... ``q95`` are
    quantiles by numpy's default linear interpolation.
    """

    n: int
    mean: float
    std: float
    cv: float
    q05: float
    q25: float
    q50: float
    q75: float
    q95: float
    bimodality: float
    bimodal: bool

    def to_dict(self) -> dict:
        return asdict(self)


def describe(samples) -> Spread:
    """The :class:`Spread` of a non-empty sample of finite values."""
    x = np.asarray(samples, dtype=np.float64).ravel()
    if x.size == 0 or not np.all(np.isfinite(x)):
        raise VariabilityError(f"a spread needs at least one finite value, got {x.size} values")
    mean = float(x.mean())
    std = float(x.std(ddof=1)) if x.size > 1 else 0.0
    q05, q25, q50, q75, q95 = (float(v) for v in np.quantile(x, QUANTILES))
    b = bimodality_coefficient(x)
    return Spread(int(x.size), mean, std, std / mean if mean != 0 else float("nan"), q05, q25, q50, q75, q95, b,
                  bool(np.isfinite(b) and b > BIMODAL_THRESHOLD))


TARGETS = {"std": lambda s: s.std, "cv": lambda s: s.cv, "mean": lambda s: s.mean, "q95": lambda s: s.q95}


def target_value(spread: Spread, target: str) -> float:
    """The map target of a spread: ``std`` (seconds), ``cv``, ``mean`` (seconds) or ``q95`` (seconds)."""
    if target not in TARGETS:
        raise VariabilityError(f"target must be one of {', '.join(TARGETS)}, got {target!r}")
    return float(TARGETS[target](spread))
