"""Screening effects with their uncertainty, and which parameters matter (paper 000, Section 4.1).

Computed here, shown by the report (:mod:`iotune.report.effects`) and judged in words by the demo, so both
say the same.

The screening stores its design (factors, low and high values) in the study's
settings; the effects are recomputed from the trials.  The report shows each
factor's **main effect**: the mean response of the design rows at its high
value minus the mean at its low value (seconds of I/O time; MiB/s of
bandwidth).  It is the paper's effect (a sum over the 2N' rows, Table 2)
divided by N', so it reads in the units of one run.

Uncertainty, 95 % intervals:

- with repeats, from their spread: a row's response is the mean of n_c runs of
  its configuration c, so Var(effect_j) = (1/N')^2 sum_c w_cj^2 s^2 / n_c, with
  w_cj the sum of factor j's signs over the rows that are configuration c
  (rows may share a configuration) and s^2 the variance of the runs pooled over
  the configurations with 2 or more runs; t quantile with their degrees of freedom;
- without repeats, Lenth's pseudo standard error (Lenth, "Quick and easy
  analysis of unreplicated factorials", Technometrics 31(4), 1989): s0 = 1.5
  median |e|, PSE = 1.5 median of the |e| below 2.5 s0, margin t_{0.975, m/3} PSE
  over the m factors' effects.  It assumes most factors do nothing (effect
  sparsity) and needs at least 4 factors.

A parameter **matters** when its interval of the time effect excludes zero.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import numpy as np
from scipy.stats import t as student_t

from iotune.records import io_bandwidth, io_seconds
from iotune.screening.effects import screen_trials
from iotune.screening.study import ScreeningStudy
from iotune.stored import StoredStudy

CONFIDENCE = 0.95
LENTH_MIN_FACTORS = 4


@dataclass(frozen=True)
class Uncertainty:
    """Half-widths (response units) of each factor's 95 % interval, and how they were obtained."""

    half_widths: np.ndarray | None
    method: str


def main_effects(matrix: np.ndarray, responses) -> np.ndarray:
    """Mean response at high minus mean at low per factor: (2 / rows) x signs^T @ responses."""
    matrix = np.asarray(matrix, dtype=float)
    return 2.0 / matrix.shape[0] * (matrix.T @ np.asarray(responses, dtype=float))


def repeat_uncertainty(matrix: np.ndarray, row_keys: list[str], runs: dict[str, list[float]],
                       confidence: float = CONFIDENCE, unit: str = "s") -> Uncertainty:
    """Half-widths from the pooled spread of the repeats (module docstring); ``method`` "none" without repeats."""
    df = sum(len(v) - 1 for v in runs.values() if len(v) > 1)
    if df == 0:
        return Uncertainty(None, "none")
    pooled = sum((len(v) - 1) * statistics.variance(v) for v in runs.values() if len(v) > 1) / df
    keys = sorted(set(row_keys))
    weights = np.zeros((len(keys), matrix.shape[1]))
    for i, key in enumerate(row_keys):
        weights[keys.index(key)] += matrix[i]
    counts = np.array([len(runs[k]) for k in keys], dtype=float)
    variance = (2.0 / matrix.shape[0]) ** 2 * pooled * (weights ** 2 / counts[:, None]).sum(axis=0)
    quantile = float(student_t.ppf(0.5 + confidence / 2, df))
    return Uncertainty(quantile * np.sqrt(variance), f"repeats (pooled sd {pooled ** 0.5:.3g} {unit}, {df} "
                                                     "degrees of freedom)")


def lenth_margin(effects, confidence: float = CONFIDENCE) -> float | None:
    """Lenth's margin of error of unreplicated effects; None with fewer than 4 effects."""
    e = np.abs(np.asarray(effects, dtype=float))
    if e.size < LENTH_MIN_FACTORS:
        return None
    s0 = 1.5 * float(np.median(e))
    small = e[e < 2.5 * s0]
    pse = 1.5 * float(np.median(small)) if small.size else s0
    return float(student_t.ppf(0.5 + confidence / 2, e.size / 3.0)) * pse


@dataclass(frozen=True)
class FactorSignificance:
    """One factor's main effects (s of I/O time, MiB/s), their 95 % half-widths (None: unknown) and verdict."""

    name: str
    low: str
    high: str
    effect_s: float
    half_s: float | None
    effect_bandwidth: float
    half_bandwidth: float | None
    rank: int
    paper_effect_s: float

    @property
    def matters(self) -> bool | None:
        """Whether the interval of the time effect excludes zero (None: no uncertainty known)."""
        return None if self.half_s is None else bool(abs(self.effect_s) > self.half_s)


@dataclass(frozen=True)
class Significance:
    """Every factor of a screening by rank, the runs, and how the uncertainty was obtained."""

    factors: list[FactorSignificance]
    runs: int
    method: str

    def first_that_matters(self) -> str | None:
        return next((f.name for f in self.factors if f.matters), None)


def significance(study: StoredStudy | ScreeningStudy) -> Significance:
    """The screening of ``study``: main effects, intervals and verdicts (ScreeningError: design incomplete)."""
    screening = ScreeningStudy.of(study)
    design, space, factors = screening.design, screening.design.space, screening.design.factors
    trials = screening.trials()
    ranking = screen_trials(design, trials, f"study {screening.name!r}")  # every row measured; the paper's sums
    times: dict[str, list[float]] = {}
    bandwidths: dict[str, list[float]] = {}
    for trial in trials:
        if trial.state == "COMPLETE" and trial.phases and io_seconds(trial.phases) > 0:
            times.setdefault(trial.config_key, []).append(io_seconds(trial.phases))
            bandwidths.setdefault(trial.config_key, []).append(io_bandwidth(trial.phases))
    keys = [row.key for row in design.rows]
    matrix = np.asarray(design.matrix, dtype=float)
    effect_s = main_effects(matrix, [statistics.fmean(times[k]) for k in keys])
    effect_bw = main_effects(matrix, [statistics.fmean(bandwidths[k]) for k in keys])
    time_u = repeat_uncertainty(matrix, keys, times, unit="s")
    bw_u = repeat_uncertainty(matrix, keys, bandwidths, unit="MiB/s")
    if time_u.half_widths is None:
        margins = lenth_margin(effect_s), lenth_margin(effect_bw)
        if margins[0] is not None:
            time_u = Uncertainty(np.full(len(factors), margins[0]), "Lenth's pseudo standard error (no repeats)")
            bw_u = Uncertainty(np.full(len(factors), margins[1]), time_u.method)
    rank = {effect.name: effect.rank for effect in ranking.effects}
    paper = {effect.name: effect.effect_s for effect in ranking.effects}
    out = []
    for j, factor in enumerate(factors):
        parameter = space.parameter(factor.name)
        out.append(FactorSignificance(
            factor.name, parameter.format(factor.low), parameter.format(factor.high), float(effect_s[j]),
            None if time_u.half_widths is None else float(time_u.half_widths[j]), float(effect_bw[j]),
            None if bw_u.half_widths is None else float(bw_u.half_widths[j]), rank[factor.name], paper[factor.name]))
    out.sort(key=lambda f: f.rank)
    return Significance(out, ranking.runs, time_u.method)
