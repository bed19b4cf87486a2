"""How many runs a configuration needs: confidence intervals of the mean time against the number of runs.

Paper 003, Section 6 ("Predicting confidence", Fig. 10).  Two intervals of the
mean of a configuration's runs (seconds):

- t-based: mean +/- t_{1-a/2, n-1} s / sqrt(n), exact for normal runs;
- bootstrap percentile (Efron): the a/2 and 1-a/2 quantiles of the means of
  ``resamples`` resamples with replacement, seeded; distribution-free but it
  undercovers for small n (it is narrower than t by about t/z sqrt((n-1)/n)).

Relative half-width = half-width / mean.  Runs needed for a target relative
half-width r at confidence 1-a: the smallest n >= 2 with
t_{1-a/2, n-1} cv / sqrt(n) <= r (t depends on n, so n is searched; the left
side decreases in n).  cv = 0 needs 1 run.

Convergence (Section 6, Fig. 10): "75 % convergence at a sample size of 24
means that with 24 samples we get 75 % of the way towards full convergence to
the maximum 40 samples", the curves starting at 10 samples.  Here
convergence(n) = (w(n0) - w(n)) / (w(n0) - w(N)), w the half-width of the
interval from the first n runs, n0 the first count shown (10), N all runs.
With the t half-width at a fixed sd (s cancels) this gives 0.73 at n = 24
and 0.88 at n = 31 for N = 40 (the paper: 75 % at 24, 90 % at 31) and
0.76 at 36, 0.91 at 57 for N = 80 (the paper: 75 % at 36, 90 % at 57), which
supports this reading of the paper's unstated formula at the paper's 90 %
confidence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import stdtrit  # what scipy.stats.t.ppf computes, without importing all of scipy.stats

from iotune.variability.errors import VariabilityError

_MAX_SEARCH = 10**12


@dataclass(frozen=True)
class Interval:
    """A confidence interval of the mean (units of the runs); ``relative_half_width`` = half-width / |mean|."""

    low: float
    high: float
    mean: float
    confidence: float
    method: str

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2.0

    @property
    def relative_half_width(self) -> float:
        if self.mean == 0:
            return 0.0 if self.half_width == 0 else float("inf")
        return self.half_width / abs(self.mean)

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


@dataclass(frozen=True)
class StopDecision:
    """Whether adaptive repeating may stop: ``reason`` is "precision", "max_runs" or "continue"."""

    stop: bool
    reason: str
    n: int
    relative_half_width: float
    runs_needed: int


@dataclass(frozen=True)
class Plan:
    """Runs plan of one configuration: intervals now, runs needed, and what the missing runs cost (seconds)."""

    n: int
    mean_seconds: float
    t_interval: Interval
    bootstrap_interval: Interval
    runs_needed: int
    extra_runs: int
    extra_seconds: float


def _check_confidence(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise VariabilityError(f"confidence must be in (0, 1), got {confidence}")
    return float(confidence)


def _sample(samples, need: int = 2) -> np.ndarray:
    x = np.asarray(samples, dtype=np.float64).ravel()
    if x.size < need:
        raise VariabilityError(f"a confidence interval needs at least {need} runs, got {x.size}")
    if not np.all(np.isfinite(x)):
        raise VariabilityError("runs must be finite numbers")
    return x


def t_interval(samples, confidence: float = 0.95) -> Interval:
    """Student-t interval of the mean from >= 2 runs."""
    confidence = _check_confidence(confidence)
    x = _sample(samples)
    n, mean = x.size, float(x.mean())
    half = float(stdtrit(n - 1, 0.5 + confidence / 2.0) * x.std(ddof=1) / math.sqrt(n))
    return Interval(mean - half, mean + half, mean, confidence, "t")


def bootstrap_interval(samples, confidence: float = 0.95, resamples: int = 2000, seed: int = 0) -> Interval:
    """Percentile-bootstrap interval of the mean from >= 2 runs (seeded, ``resamples`` resamples)."""
    confidence = _check_confidence(confidence)
    x = _sample(samples)
    if resamples < 100:
        raise VariabilityError(f"resamples must be >= 100, got {resamples}")
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, size=(resamples, x.size))].mean(axis=1)
    low, high = np.quantile(means, [0.5 - confidence / 2.0, 0.5 + confidence / 2.0])
    return Interval(float(low), float(high), float(x.mean()), confidence, "bootstrap")


def _relative_width(cv: float, n: int, confidence: float) -> float:
    return float(stdtrit(n - 1, 0.5 + confidence / 2.0)) * cv / math.sqrt(n)


def runs_needed_for_cv(cv: float, rel_half_width: float = 0.05, confidence: float = 0.95) -> int:
    """Smallest n with t_{1-a/2, n-1} cv / sqrt(n) <= rel_half_width; 1 when cv = 0.

    ``cv`` may be measured or predicted by a variability map of target "cv".
    """
    confidence = _check_confidence(confidence)
    if not rel_half_width > 0:
        raise VariabilityError(f"rel_half_width must be > 0, got {rel_half_width}")
    if not (math.isfinite(cv) and cv >= 0):
        raise VariabilityError(f"cv must be a finite number >= 0, got {cv}")
    if cv == 0:
        return 1
    high = max(2, math.ceil((2.0 * cv / rel_half_width) ** 2))
    while _relative_width(cv, high, confidence) > rel_half_width:
        high *= 2
        if high > _MAX_SEARCH:
            raise VariabilityError(f"cv {cv} needs more than {_MAX_SEARCH} runs for {rel_half_width}")
    low = 1
    while high - low > 1:
        mid = (low + high) // 2
        if mid >= 2 and _relative_width(cv, mid, confidence) <= rel_half_width:
            high = mid
        else:
            low = mid
    return high


def runs_needed(samples, rel_half_width: float = 0.05, confidence: float = 0.95) -> int:
    """Runs needed judging by a sample's cv = sd / mean (>= 2 runs, mean != 0 unless sd = 0)."""
    x = _sample(samples)
    sd, mean = float(x.std(ddof=1)), float(x.mean())
    if sd == 0:
        return 1
    if mean == 0:
        raise VariabilityError("the runs have a zero mean: a relative width is undefined")
    return runs_needed_for_cv(sd / abs(mean), rel_half_width, confidence)


def convergence(samples, confidence: float = 0.90, start: int = 10) -> np.ndarray:
    """Paper 003, Section 6: convergence(n) for n = start .. N over the first n runs (see module docstring).

    Returns an array of (n, convergence) rows.  A flat curve (w(start) = w(N))
    has converged everywhere: 1.
    """
    x = _sample(samples, need=max(start, 2) + 1)
    start = max(start, 2)
    widths = np.array([t_interval(x[:n], confidence).half_width for n in range(start, x.size + 1)])
    denom = widths[0] - widths[-1]
    values = (widths[0] - widths) / denom if denom != 0 else np.ones_like(widths)
    return np.column_stack([np.arange(start, x.size + 1), values])


def expected_convergence(n: int, n_max: int, confidence: float = 0.90, start: int = 10) -> float:
    """Convergence at n of the t half-width for a fixed sd (the sd cancels): for a predicted configuration."""
    confidence = _check_confidence(confidence)
    if not 2 <= start < n_max or not start <= n <= n_max:
        raise VariabilityError(f"need 2 <= start < n_max and start <= n <= n_max, got {start}, {n}, {n_max}")
    w = [_relative_width(1.0, k, confidence) for k in (start, n, n_max)]
    return (w[0] - w[1]) / (w[0] - w[2])


class RepeatPlanner:
    """Runs planning at a target relative half-width and confidence (paper 003, Section 6).

    ``rel_half_width``: wanted half-width of the interval of the mean, as a
    fraction of the mean (0.05 = +/- 5 %); ``confidence`` in (0, 1);
    ``max_runs``: the most runs adaptive repeating may spend; ``resamples`` and
    ``seed``: the bootstrap's.
    """

    def __init__(self, rel_half_width: float = 0.05, confidence: float = 0.95, max_runs: int = 100,
                 resamples: int = 2000, seed: int = 0):
        self.rel_half_width = rel_half_width
        self.confidence = confidence
        self.max_runs = max_runs
        self.resamples = resamples
        self.seed = seed

    def plan(self, samples) -> Plan:
        """Intervals from the runs so far (seconds), runs needed, extra runs x mean time in seconds."""
        x = _sample(samples)
        needed = runs_needed(x, self.rel_half_width, self.confidence)
        extra = max(0, needed - x.size)
        return Plan(int(x.size), float(x.mean()), t_interval(x, self.confidence),
                    bootstrap_interval(x, self.confidence, self.resamples, self.seed),
                    needed, extra, extra * float(x.mean()))

    def runs_for_cv(self, cv: float) -> int:
        """Runs needed for a (predicted) coefficient of variation."""
        return runs_needed_for_cv(cv, self.rel_half_width, self.confidence)

    def cost_seconds(self, cv: float, mean_seconds: float) -> float:
        """Seconds the runs needed for ``cv`` take: runs x mean time of one run (seconds)."""
        return self.runs_for_cv(cv) * float(mean_seconds)

    def should_stop(self, samples, rel_half_width: float | None = None, confidence: float | None = None,
                    max_runs: int | None = None) -> StopDecision:
        """Stop repeating when the t interval is narrow enough or ``max_runs`` runs are done.

        Fewer than 2 runs: continue (no spread yet).  Stopping on the data
        itself makes the final interval cover a little less than nominal.
        """
        rel = self.rel_half_width if rel_half_width is None else rel_half_width
        conf = self.confidence if confidence is None else confidence
        limit = self.max_runs if max_runs is None else max_runs
        if limit < 1:
            raise VariabilityError(f"max_runs must be >= 1, got {limit}")
        x = np.asarray(samples, dtype=np.float64).ravel()
        if x.size < 2:
            stop = x.size >= limit
            return StopDecision(stop, "max_runs" if stop else "continue", int(x.size), float("inf"), 2)
        width = t_interval(x, conf).relative_half_width
        needed = runs_needed(x, rel, conf)
        if width <= rel:
            return StopDecision(True, "precision", int(x.size), width, needed)
        if x.size >= limit:
            return StopDecision(True, "max_runs", int(x.size), width, needed)
        return StopDecision(False, "continue", int(x.size), width, needed)
