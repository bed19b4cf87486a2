"""Screening effects with their uncertainty, and which parameters matter (paper 000, Section 4.1).

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

from iotune.errors import IotuneError
from iotune.records import io_bandwidth, io_seconds
from iotune.report.tables import Figure, Section, Table
from iotune.screening import Factor, build_design, load_screen
from iotune.space import Space

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


def screening_study(data) -> tuple[str | None, str]:
    """The study whose screening to show: this one if it was screened, else ``<study>-screen`` (the demo's)."""
    if isinstance(data.settings.get("screening"), dict):
        return data.name, ""
    sibling = f"{data.name}-screen"
    record = data.store.get_study(sibling)
    if record is not None and isinstance((record.settings or {}).get("screening"), dict):
        return sibling, f"This study was not screened; the screening below is that of study {sibling}."
    return None, ""


def effects_table(store, study: str) -> tuple[Table, dict]:
    """Factors by rank with their main effects on time (s) and bandwidth (MiB/s), intervals and verdict.

    Also returns facts about the computation (runs, method, paper's ranking).
    ScreeningError when the study's design is missing rows.
    """
    record = store.get_study(study)
    ranking = load_screen(store, study)  # checks the design is complete; the paper's sums and ranks
    space = Space.from_text(record.space_yaml, source=f"study {study}")
    factors = [Factor(f["name"], f["low"], f["high"]) for f in record.settings["screening"]["factors"]]
    design = build_design(space, factors)
    times: dict[str, list[float]] = {}
    bandwidths: dict[str, list[float]] = {}
    for trial in store.trials(study=study, state="COMPLETE"):
        if trial.phases and io_seconds(trial.phases) > 0:
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
    rows = []
    for j, factor in enumerate(factors):
        parameter = space.parameter(factor.name)
        half = None if time_u.half_widths is None else float(time_u.half_widths[j])
        half_bw = None if bw_u.half_widths is None else float(bw_u.half_widths[j])
        matters = None if half is None else bool(abs(effect_s[j]) > half)
        rows.append((rank[factor.name], factor.name, parameter.format(factor.low), parameter.format(factor.high),
                     float(effect_s[j]), half, float(effect_bw[j]), half_bw,
                     "unknown" if matters is None else ("yes" if matters else "no"), paper[factor.name]))
    rows.sort(key=lambda r: r[0])
    table = Table(("rank", "parameter", "low", "high", "effect on I/O time (s)", "± (s, 95%)",
                   "effect on bandwidth (MiB/s)", "± (MiB/s, 95%)", "matters", "paper's effect sum (s)"), rows,
                  f"Screening effects (study {study})",
                  "Effect: mean over the design's runs at the high value minus the mean at the low value (positive "
                  "time effect: the high value is slower). Rank by the size of the time effect, 1 = most "
                  "influential. The paper's effect sum is the same effect times the design's runs / 2.")
    return table, {"runs": ranking.runs, "method": time_u.method, "factors": len(factors)}


def effects_section(data) -> Section:
    """Screening effects, their intervals and a verdict per parameter; says plainly when there is no screening."""
    title = "Screening: which parameters matter"
    study, note = screening_study(data)
    if study is None:
        return Section.nothing("screening", title, "This study was not measured by a Plackett-Burman screening "
                               "(its settings record no screening design): there are no effects to show. "
                               "`iotune screen SPEC` makes one.")
    try:
        table, facts = effects_table(data.store, study)
    except IotuneError as error:
        return Section.nothing("screening", title, f"The screening of study {study} cannot be computed: {error}")
    section = Section("screening", title, paragraphs=[note] if note else [])
    matter = [r[1] for r in table.rows if r[8] == "yes"]
    section.paragraphs.append(
        f"Foldover Plackett-Burman design of {facts['runs']} runs over {facts['factors']} parameters; "
        f"uncertainty from {facts['method']}. "
        + (f"Parameters whose effect on I/O time is beyond the noise: {', '.join(matter)}." if matter else
           "No parameter's effect on I/O time is beyond the noise." if facts["method"] != "none" else
           "Without repeats and with fewer than 4 factors the noise is unknown: every effect may be chance."))
    if facts["method"].startswith("Lenth"):
        section.paragraphs.append(
            f"Without repeats the noise is estimated from the {facts['factors']} effects themselves (Lenth's method, "
            "which takes most of them to be noise); with few parameters its intervals are wide and can hide real "
            "effects. Repeats give a direct estimate.")
    if facts["method"] == "none":
        section.warnings.append("The effects have no uncertainty: measure the screening with repeats "
                                "(campaign: repeats: 3) to know which differences are beyond run-to-run noise.")
    disagree = [r[1] for r in table.rows if r[4] * r[6] > 0 and abs(r[4]) > (r[5] or 0) and abs(r[6]) > (r[7] or 0)]
    if disagree:
        section.paragraphs.append(
            f"For {', '.join(disagree)} the time and bandwidth effects point the same way (slower and faster at "
            "once): the high value moves more bytes, or a few slow runs weigh on the mean time more than on the "
            "mean bandwidth.")
    section.tables.append(table)
    section.figures.append(Figure(
        "screening-effects", "effects", "Main effects with 95% intervals", table,
        "Bars: the main effect of each parameter from its low to its high value; whiskers: 95% interval. "
        "Dark bars are beyond the noise (the interval excludes zero); pale ones are not.",
        {"label": "parameter", "panels": [("effect on I/O time (s)", "± (s, 95%)"),
                                          ("effect on bandwidth (MiB/s)", "± (MiB/s, 95%)")],
         "matters": "matters"}))
    return section
