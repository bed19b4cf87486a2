"""Run-to-run spread of recommended configurations, and whether the top ones can be told apart.

Paper 003 (MOANA): a configuration's spread is measured from its repeats
(Section 2.1) or, when it was never measured, predicted by a variability map
of the study's repeats (Sections 3 and 5; Delaunay interpolation, Section 5.3,
as in Section 6), and the runs a confidence interval needs follow from that
spread (Section 6, "Predicting confidence").

The spread is the coefficient of variation (cv, unitless) of the I/O time.
In objective units the standard deviation is taken as ``sd = cv * |P|``, P
the model's prediction: exact for time; for cost too, since cost is time
times a price factor fixed by the configuration (paper 000, Eq. 2); for
bandwidth = bytes / time to first order (delta method; fair below cv ~ 0.3).

Rule for "cannot be told apart" (Welch's two-sample test at ``confidence``,
the predictions standing for the means): candidate i and the best (rank 1)
are indistinguishable when

    |P_i - P_1| < t_{(1+c)/2, df} * sqrt(sd_i^2 / n_i + sd_1^2 / n_1)

with n the runs measured (>= 2; a cv from fewer than 5 runs is pooled with the study's for the degrees
of freedom it lacks), else the runs the planner would make for a
``rel_half_width`` interval (:func:`~iotune.variability.runs_needed_for_cv`,
at least 2), and df by Welch-Satterthwaite.  The runs that would separate
them narrow both intervals to half the gap, so they cannot overlap:
``runs_needed_for_cv(cv_j, |P_i - P_1| / (2 |P_j|))``, the larger of j = 1, i.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import t as student_t

from iotune.learn.estimators.delaunay import DelaunayInterpolator
from iotune.space.configuration import digest
from iotune.stored import StoredStudy
from iotune.variability import Repeats, VariabilityMap, describe, runs_needed_for_cv
from iotune.variability.errors import VariabilityError


@dataclass
class CandidateSpread:
    """Spread of one candidate's I/O time.

    ``source``: "measured", "predicted (delaunay)", "predicted (linear)" or
    "unknown" (then ``reason`` says why).  ``cv``: unitless; ``sd``: cv x
    |predicted|, in the recommendation's unit; ``n_measured``: repeats of
    exactly this configuration in the study; ``mean_seconds`` / ``std_seconds``
    / ``bimodal``: of those repeats, when measured (paper 003 footnote 1, Sarle's
    coefficient); ``runs``: runs the verdict assumes (measured, else the
    planner's); ``half_width``: t-based half-width of the mean at ``runs`` runs,
    recommendation's unit; ``runs_for_precision``: runs for a ``rel_half_width``
    interval of the mean (paper 003, Section 6).
    """

    source: str
    cv: float | None = None
    sd: float | None = None
    n_measured: int = 0
    mean_seconds: float | None = None
    std_seconds: float | None = None
    bimodal: bool | None = None
    runs: int | None = None
    half_width: float | None = None
    runs_for_precision: int | None = None
    reason: str = ""


@dataclass
class Comparison:
    """Candidate ``rank`` against the best: gap and Welch threshold (recommendation's unit), verdict, runs."""

    rank: int
    gap: float
    threshold: float | None
    indistinguishable: bool | None
    runs_to_separate: int | None


@dataclass
class Separation:
    """Whether the top candidates can be told apart at ``confidence``.

    ``verdict``: "ahead" (rank 1 beyond the run-to-run spread of every other),
    "indistinguishable" (``ranks`` cannot be told apart; ``runs_each`` runs per
    candidate would separate them, None when their predictions are equal, as
    for co-champions, and only measuring them can rank them) or
    "unknown" (``reason``).  ``message``: one line for people.
    """

    verdict: str
    confidence: float
    ranks: list[int] = field(default_factory=list)
    runs_each: int | None = None
    comparisons: list[Comparison] = field(default_factory=list)
    message: str = ""
    reason: str = ""


def attach_spread(recommendation, study: StoredStudy, confidence: float = 0.95, rel_half_width: float = 0.05):
    """A copy of ``recommendation`` with each candidate's ``spread`` and the ``separation`` verdict.

    ``study``: the stored study whose repeats give the spread; ``confidence`` in (0, 1); ``rel_half_width``: the
    planner's target half-width of the mean, a fraction of it (0.05 = +/- 5 %).
    Never raises for want of variability data: spreads become "unknown".
    """
    candidates = recommendation.candidates
    try:
        spreads = _spreads(candidates, study, confidence, rel_half_width)
        separation = _separation(candidates, spreads, confidence, rel_half_width)
    # Variability is advisory: whatever breaks in it (store, maps, numerics) must not lose the recommendation.
    except Exception as exc:  # noqa: BLE001
        reason = f"variability could not be computed: {exc}"
        spreads = [CandidateSpread("unknown", reason=reason) for _ in candidates]
        separation = Separation("unknown", confidence, reason=reason, message=f"spread unknown: {reason}")
    return dataclasses.replace(recommendation, separation=separation, candidates=[
        dataclasses.replace(c, spread=s) for c, s in zip(candidates, spreads, strict=True)])


def _spreads(candidates, study, confidence, rel_half_width) -> list[CandidateSpread]:
    try:
        repeats = Repeats.from_study(study).require_repeats(2)
    except VariabilityError as exc:
        return [CandidateSpread("unknown", reason=str(exc)) for _ in candidates]
    measured = {digest(config): times for config, times in zip(repeats.configs, repeats.times, strict=True)}
    missing = [c.configuration for c in candidates if digest(c.configuration) not in measured]
    predicted = iter(_predict_cv(missing, repeats) if missing else [])
    out: list[CandidateSpread] = []
    for candidate in candidates:
        times = measured.get(digest(candidate.configuration))
        if times is None:
            cv, source, reason = next(predicted)
            out.append(CandidateSpread(source, cv, reason=reason))
            continue
        s = describe(times)
        out.append(CandidateSpread("measured", _with_study_spread(s.cv, s.n, repeats), n_measured=s.n,
                                   mean_seconds=s.mean, std_seconds=s.std, bimodal=s.bimodal, runs=s.n))
    for candidate, spread in zip(candidates, out, strict=True):
        if spread.cv is None or not math.isfinite(spread.cv):
            spread.source, spread.cv = "unknown", None
            spread.reason = spread.reason or "the cv is undefined (zero mean time)"
            continue
        spread.sd = spread.cv * abs(candidate.predicted)
        spread.runs_for_precision = runs_needed_for_cv(spread.cv, rel_half_width, confidence)
        spread.runs = spread.runs or max(2, spread.runs_for_precision)
        spread.half_width = _t(confidence, spread.runs - 1) * spread.sd / math.sqrt(spread.runs)
    return out


MIN_DOF = 4
"""Degrees of freedom (runs - 1) below which a configuration's own cv is pooled with the study's."""


def _with_study_spread(cv: float, n: int, repeats) -> float:
    """A configuration's cv from its own ``n`` runs, pooled with the study's cv (every configuration's repeats)
    for the degrees of freedom it lacks below ``MIN_DOF``: two runs that happen to agree are no evidence of a
    quiet configuration."""
    if not math.isfinite(cv) or n - 1 >= MIN_DOF:
        return cv
    pairs = [(float(np.std(t, ddof=1) / np.mean(t)), len(t) - 1)
             for t in repeats.times if len(t) > 1 and np.mean(t) > 0]
    dof = sum(d for _, d in pairs)
    if not dof:
        return cv
    study = math.sqrt(sum(c * c * d for c, d in pairs) / dof)
    missing = MIN_DOF - (n - 1)
    return math.sqrt((cv * cv * (n - 1) + study * study * missing) / MIN_DOF)


def _predict_cv(configs, repeats) -> list[tuple[float | None, str, str]]:
    """Predicted cv per configuration: Delaunay inside its map's hull, else a linear map over all parameters."""
    reasons, maps = [], []
    for predictor, per_category in (("delaunay", True), ("linear", False)):
        try:
            fitted = VariabilityMap("cv", predictor, per_category).fit(repeats)
        except VariabilityError as exc:
            reasons.append(f"{predictor} map: {exc}")
            continue
        for _, model in fitted.maps_.values():
            if isinstance(model, DelaunayInterpolator):
                model.set_params(extrapolation="nan")
        maps.append((predictor, fitted))
    results: list[tuple[float | None, str, str]] = []
    for config in configs:
        why = list(reasons)
        for predictor, fitted in maps:
            try:
                value = float(fitted.predict([config])[0])
            except VariabilityError as exc:
                why.append(f"{predictor} map: {exc}")
                continue
            if math.isfinite(value):
                results.append((max(value, 0.0), f"predicted ({predictor})", ""))
                break
            why.append(f"{predictor} map: outside the measured configurations")
        else:
            results.append((None, "unknown", "; ".join(why) or "no variability map"))
    return results


def _t(confidence: float, df: float) -> float:
    return float(student_t.ppf(0.5 + confidence / 2.0, df))


def _compare(rank, best, mine, p_best, p_mine, confidence) -> Comparison:
    gap = abs(p_mine - p_best)
    if best.cv is None or mine.cv is None:
        return Comparison(rank, gap, None, None, None)
    a, b = best.sd ** 2 / best.runs, mine.sd ** 2 / mine.runs
    if a + b == 0:
        threshold = 0.0
    else:
        df = (a + b) ** 2 / (a * a / (best.runs - 1) + b * b / (mine.runs - 1))
        threshold = _t(confidence, df) * math.sqrt(a + b)
    close = bool(gap < threshold or gap == 0)
    runs = None
    if close and gap > 0:
        try:
            runs = max(runs_needed_for_cv(s.cv, gap / (2 * abs(p)), confidence)
                       for s, p in ((best, p_best), (mine, p_mine)))
        except VariabilityError:
            runs = None
    return Comparison(rank, gap, threshold, close, runs)


def _separation(candidates, spreads, confidence, rel_half_width) -> Separation:
    if len(candidates) < 2:
        return Separation("unknown", confidence, [1] if candidates else [], reason="only one candidate to compare")
    best = spreads[0]
    if best.cv is None:
        return Separation("unknown", confidence, reason=f"spread of candidate 1 unknown: {best.reason}",
                          message=f"cannot say whether candidate 1 is ahead: its spread is unknown ({best.reason})")
    comparisons = [_compare(c.rank, best, s, candidates[0].predicted, c.predicted, confidence)
                   for c, s in zip(candidates[1:], spreads[1:], strict=True)]
    close = [c for c in comparisons if c.indistinguishable]
    unknown = [c.rank for c in comparisons if c.indistinguishable is None]
    note = f" (spread of candidate(s) {_ranks(unknown)} unknown)" if unknown else ""
    level = f"{confidence:.0%}"
    if not close:
        verdict = "ahead" if not unknown else "unknown"
        return Separation(verdict, confidence, [1], None, comparisons,
                          f"candidate 1 is ahead beyond the run-to-run spread at {level}{note}",
                          "" if not unknown else "some spreads unknown")
    ranks = [1] + [c.rank for c in close]
    runs = [c.runs_to_separate for c in close if c.runs_to_separate is not None]
    if any(c.gap == 0 for c in close):
        precise = max(spreads[r - 1].runs_for_precision or 0 for r in ranks)
        message = (f"candidates {_ranks(ranks)} cannot be told apart: the model predicts the same value for them, "
                   f"so only measuring them can rank them (about {precise} runs each for a ±{rel_half_width:.0%} "
                   f"interval of the mean at {level})")
        each = None
    elif len(runs) < len(close):  # a pair that no number of runs separates
        message = f"candidates {_ranks(ranks)} cannot be told apart: they differ by less than runs can resolve"
        each = None
    else:
        each = max(runs)
        message = (f"candidates {_ranks(ranks)} cannot be told apart without more runs: about {each} runs each "
                   f"would separate them at {level}")
    return Separation("indistinguishable", confidence, ranks, each, comparisons, message + note)


def _ranks(ranks: list[int]) -> str:
    """``[1, 2, 3]`` -> ``"1-3"``, ``[1, 3]`` -> ``"1, 3"``."""
    ranks = sorted(ranks)
    if len(ranks) > 1 and ranks == list(range(ranks[0], ranks[-1] + 1)):
        return f"{ranks[0]}-{ranks[-1]}"
    return ", ".join(map(str, ranks))


def spread_label(spread: CandidateSpread | None) -> str:
    """Table text: ``"±12% cv (measured, n=5)"``, ``"±18% cv (predicted, delaunay)"`` or ``"unknown"``."""
    if spread is None or spread.cv is None:
        return "unknown"
    if spread.source == "measured":
        where = f"measured, n={spread.n_measured}" + (", bimodal" if spread.bimodal else "")
    else:
        where = spread.source.replace(" (", ", ").rstrip(")")
    return f"±{spread.cv:.0%} cv ({where})"


__all__ = ["CandidateSpread", "Comparison", "Separation", "attach_spread", "spread_label"]
