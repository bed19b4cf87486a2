"""Statistics over stored repeats: every repeat is kept raw, numbers are computed when read.

A trial's I/O time and bandwidth are :func:`iotune.records.io_seconds` and
:func:`~iotune.records.io_bandwidth`.  Lower time is better.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from iotune.records import io_bandwidth, io_seconds


@dataclass
class ConfigurationStats:
    """The repeats of one configuration: raw times (seconds) and summary numbers."""

    config: dict
    config_key: str
    workload_key: str
    times: list[float] = field(default_factory=list)
    bandwidths: list[float] = field(default_factory=list)
    failed: int = 0

    @property
    def n(self) -> int:
        return len(self.times)

    @property
    def mean_time(self) -> float:
        """The geometric mean of its times: the central value every answer states (run-to-run noise is
        multiplicative; :mod:`iotune.variability.estimate` says why)."""
        return math.exp(statistics.fmean(math.log(t) for t in self.times)) if all(t > 0 for t in self.times) \
            else statistics.fmean(self.times)

    @property
    def std_time(self) -> float:
        return statistics.stdev(self.times) if self.n > 1 else 0.0

    @property
    def mean_bandwidth(self) -> float:
        return statistics.fmean(self.bandwidths)

    @property
    def cv(self) -> float:
        return self.std_time / self.mean_time if self.mean_time > 0 else 0.0

    def to_dict(self) -> dict:
        return {
            "config_key": self.config_key,
            "workload_key": self.workload_key,
            "config": self.config,
            "repeats": self.n,
            "failed": self.failed,
            "mean_time_s": self.mean_time if self.n else None,
            "std_time_s": self.std_time if self.n else None,
            "min_time_s": min(self.times) if self.n else None,
            "max_time_s": max(self.times) if self.n else None,
            # None when no repeat recorded bytes (an application timed by its wall time): not a bandwidth of 0
            "mean_bandwidth_mib_s": self.mean_bandwidth if self.n and any(self.bandwidths) else None,
            "times_s": self.times,
        }


def configuration_stats(trials) -> dict[str, ConfigurationStats]:
    """Group trial records (COMPLETE and FAILED) by configuration key."""
    groups: dict[str, ConfigurationStats] = {}
    for trial in trials:
        stats = groups.setdefault(trial.config_key, ConfigurationStats(trial.config, trial.config_key,
                                                                        trial.workload_key))
        if trial.state == "COMPLETE" and trial.phases:
            stats.times.append(io_seconds(trial.phases))
            stats.bandwidths.append(io_bandwidth(trial.phases))
        elif trial.state == "FAILED":
            stats.failed += 1
    return groups


@dataclass
class WorkloadBest:
    """The fastest measured configuration of one workload and how much it gains."""

    workload: dict
    best: ConfigurationStats
    configurations: int
    default: ConfigurationStats | None
    median_time: float
    worst: ConfigurationStats

    @property
    def speedup_vs_default(self) -> float | None:
        return self.default.mean_time / self.best.mean_time if self.default else None

    @property
    def speedup_vs_median(self) -> float:
        return self.median_time / self.best.mean_time

    @property
    def speedup_vs_worst(self) -> float:
        return self.worst.mean_time / self.best.mean_time

    def to_dict(self) -> dict:
        return {
            "workload": self.workload,
            "configurations": self.configurations,
            "best": self.best.to_dict(),
            "default": self.default.to_dict() if self.default else None,
            "median_time_s": self.median_time,
            "worst": self.worst.to_dict(),
            "speedup_vs_default": self.speedup_vs_default,
            "speedup_vs_median": self.speedup_vs_median,
            "speedup_vs_worst": self.speedup_vs_worst,
        }


def best_per_workload(space, trials) -> list[WorkloadBest]:
    """For each workload, the configuration with the lowest (geometric) mean I/O time over its repeats.

    The default configuration is the one whose system parameters all take their
    declared defaults (inactive ones excepted); it is None when never measured.
    """
    workload_names = [p.name for p in space.parameters if p.role == "workload"]
    by_workload: dict[str, list[ConfigurationStats]] = {}
    for stats in configuration_stats(trials).values():
        if stats.n:
            by_workload.setdefault(stats.workload_key, []).append(stats)
    results = []
    for group in by_workload.values():
        group.sort(key=lambda s: s.mean_time)
        default = next((s for s in group if _is_default(space, s.config)), None)
        results.append(WorkloadBest(
            workload={name: group[0].config.get(name) for name in workload_names},
            best=group[0],
            configurations=len(group),
            default=default,
            median_time=statistics.median(s.mean_time for s in group),
            worst=group[-1],
        ))
    results.sort(key=lambda r: [str(v) for v in r.workload.values()])
    return results


def _is_default(space, config: dict) -> bool:
    for parameter in space.parameters:
        if parameter.role != "system":
            continue
        value = config.get(parameter.name)
        if value is not None and value != parameter.default:
            return False
    return True


def student_t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (``df`` may be fractional, as
    Welch's is), without scipy: reading commands answer without importing it (it takes seconds here).

    The CDF is the regularized incomplete beta function (Abramowitz and Stegun 26.7.1), evaluated by its
    continued fraction (Numerical Recipes, betacf), and inverted by bisection to 1e-12.
    """
    if not 0 < p < 1 or not df > 0:
        raise ValueError(f"need 0 < p < 1 and df > 0, got p={p!r}, df={df!r}")
    if p < 0.5:
        return -student_t_quantile(1 - p, df)
    low, high = 0.0, 1.0
    while _t_cdf(high, df) < p:
        low, high = high, high * 2
    while high - low > 1e-12 * max(1.0, high):
        middle = (low + high) / 2
        low, high = (middle, high) if _t_cdf(middle, df) < p else (low, middle)
    return (low + high) / 2


def _t_cdf(t: float, df: float) -> float:
    x = df / (df + t * t)
    tail = 0.5 * _incomplete_beta(x, df / 2, 0.5)
    return 1 - tail if t >= 0 else tail


def _incomplete_beta(x: float, a: float, b: float) -> float:
    import math

    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(x, a, b) / a
    return 1 - front * _beta_fraction(1 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 500):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return fraction
