"""Variability: spread per configuration, the fitted variability map, and the repeats a mean needs (paper 003).

The map is judged out of sample: configurations are dealt into folds (as for
the performance models) and each one's standard deviation is predicted by
maps fitted on the other folds.  Paper 003's per-category maps with the
linear Shepard interpolant come first; when they cannot be fitted (too few
points in a category) one linear map over every parameter stands in, and the
text says which was used.  Repeats needed: the smallest n with
t_{0.975, n-1} cv / sqrt(n) <= 5 % (:func:`iotune.variability.runs_needed`).
"""

from __future__ import annotations

import numpy as np

from iotune.errors import IotuneError
from iotune.report.models import FIT_ERRORS, configuration_folds
from iotune.report.tables import Figure, Section, Table, fmt_percent, fmt_seconds, label_of
from iotune.variability import Repeats, describe, runs_needed

REL_HALF_WIDTH = 0.05
CONFIDENCE = 0.95
MAPS = (("lsp", True, "linear Shepard maps, one per combination of categorical parameters"),
        ("linear", False, "one linear map over every parameter"))
BUCKETS = ((1, 2), (3, 5), (6, 10), (11, 20), (21, 50), (51, 100), (101, None))


def held_out_map(repeats: Repeats, predictor: str, per_category: bool, folds: int = 5,
                 seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Each configuration's standard deviation (s) predicted by a map fitted without it (NaN where no map covers
    it), and the reference: the mean standard deviation of the other folds' configurations.

    VariabilityError when a fold's maps cannot be fitted.
    """
    fold = configuration_folds(repeats.config_keys, min(folds, len(repeats)), seed)  # scikit-learn, without pandas
    from iotune.variability import VariabilityMap

    predicted = np.full(len(repeats), np.nan)
    reference = np.full(len(repeats), np.nan)
    for k in np.unique(fold):
        train = [i for i in range(len(repeats)) if fold[i] != k]
        test = [i for i in range(len(repeats)) if fold[i] == k]
        subset = Repeats(repeats.study, repeats.space, [repeats.configs[i] for i in train],
                         [repeats.config_keys[i] for i in train], [repeats.times[i] for i in train])
        fitted = VariabilityMap("std", predictor, per_category).fit(subset)  # scikit-learn: loaded when fitted
        reference[test] = float(np.mean([t.std(ddof=1) for t in subset.times]))
        for i in test:
            try:
                predicted[i] = float(fitted.predict([repeats.configs[i]])[0])
            except IotuneError:
                pass  # its category was never measured in the other folds
    return predicted, reference


def fitted_map(repeats: Repeats, fits=None) -> tuple[np.ndarray, np.ndarray, str]:
    """Held-out predicted standard deviations (s) of the first map kind that fits, the reference, its description;
    ``fits`` keeps them between reports (:func:`kept_map`)."""
    problems = []
    for predictor, per_category, label in MAPS:
        try:
            return (*kept_map(repeats, predictor, per_category, fits), label)
        except FIT_ERRORS as error:
            problems.append(f"{label}: {error}")
    raise IotuneError("no variability map could be fitted: " + "; ".join(problems))


def kept_map(repeats: Repeats, predictor: str, per_category: bool, fits=None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`held_out_map`, read back from ``fits`` (a :class:`~iotune.report.fits.FitCache`) when it holds this
    map kind's predictions, or its failure, for these repeats."""
    if fits is None:
        return held_out_map(repeats, predictor, per_category)
    from iotune.report import fits as cache

    name = cache.key("held-out variability map", predictor=predictor, per_category=per_category, folds=5, seed=0,
                     rows=cache.digest(repeats.space.hash, repeats.configs, repeats.config_keys,
                                       [t.tolist() for t in repeats.times]))
    return fits.held_out(name, len(repeats), lambda: held_out_map(repeats, predictor, per_category), FIT_ERRORS)


def are(measured, predicted) -> float | None:
    """Average relative error (fraction) over the non-zero measured values; None when there is none."""
    measured, predicted = np.asarray(measured, float), np.asarray(predicted, float)
    keep = (measured > 0) & np.isfinite(predicted)
    return float(np.mean(np.abs(predicted[keep] - measured[keep]) / measured[keep])) if keep.any() else None


def spread_table(repeats: Repeats, predicted: np.ndarray | None) -> Table:
    """One row per configuration with 2+ runs, the most variable (cv) first: runs, mean, sd, cv, quantiles,
    bimodality, the map's held-out sd and the repeats needed."""
    rows = []
    for i, (config, times) in enumerate(zip(repeats.configs, repeats.times, strict=True)):
        s = describe(times)
        needed = runs_needed(times, REL_HALF_WIDTH, CONFIDENCE) if s.mean > 0 else None
        rows.append((label_of(repeats.space, config), s.n, s.mean, s.std, 100 * s.cv, s.q05, s.q95,
                     "yes" if s.bimodal else "no", None if predicted is None or np.isnan(predicted[i])
                     else float(predicted[i]), needed))
    rows.sort(key=lambda row: -row[4] if row[4] == row[4] else 0.0)
    return Table(("configuration", "runs", "mean I/O time (s)", "sd (s)", "cv (%)", "5% quantile (s)",
                  "95% quantile (s)", "bimodal", "map's held-out sd (s)", "runs needed for ±5%"), rows,
                 "Spread of each configuration's runs",
                 "sd: sample standard deviation of the I/O time; cv = sd / mean; bimodal: Sarle's coefficient above "
                 "5/9 (needs 4 runs); runs needed: for a 95% interval of the mean within ±5% of it.")


def needed_table(spread: Table) -> Table:
    """Configurations per bucket of runs needed, beside how many already have that many runs."""
    needed = spread.column("runs needed for ±5%")
    runs = spread.column("runs")
    rows = []
    for low, high in BUCKETS:
        inside = [i for i, n in enumerate(needed) if n is not None and n >= low and (high is None or n <= high)]
        label = f"{low}-{high}" if high else f"over {low - 1}"
        rows.append((label, len(inside), sum(1 for i in inside if runs[i] >= needed[i])))
    return Table(("runs needed for ±5%", "configurations", "of which already measured that often"), rows,
                 "Repeats needed")


def spread_section(data) -> Section:
    """Spread per configuration, the fitted map judged out of sample, and the repeats needed."""
    title = "Variability"
    try:
        repeats = Repeats.from_study(data.study).with_at_least(2)
    except IotuneError as error:
        return Section.nothing("variability", title, str(error))
    if not len(repeats):
        return Section.nothing("variability", title, "No configuration was measured twice: a spread needs at least "
                               "2 runs of a configuration (`campaign: repeats:` 3 or more).")
    section = Section("variability", title)
    predicted, reference, label = None, None, ""
    if len(repeats) >= 5:
        try:
            predicted, reference, label = fitted_map(repeats, data.fits)
        except IotuneError as error:
            section.warnings.append(str(error))
    else:
        section.paragraphs.append(f"{len(repeats)} configurations with repeats: too few to judge a variability map "
                                  "(at least 5).")
    spread = spread_table(repeats, predicted)
    cvs = np.array(spread.column("cv (%)"))
    section.paragraphs.append(
        f"{len(repeats)} configurations measured at least twice; the coefficient of variation of their I/O time "
        f"has median {np.nanmedian(cvs):.3g}% and maximum {np.nanmax(cvs):.3g}%; "
        f"{sum(1 for v in spread.column('bimodal') if v == 'yes')} are bimodal.")
    section.figures.append(Figure(
        "variability-spread", "spread", "Spread against mean I/O time, per configuration", spread,
        "One point per configuration: standard deviation of its runs against their mean (seconds, log scales); "
        "dotted lines mark a constant coefficient of variation; bimodal configurations are ringed.",
        {"x": "mean I/O time (s)", "y": "sd (s)", "bimodal": "bimodal"}))
    if predicted is not None:
        held = [(m, p) for m, p in zip(spread.column("sd (s)"), spread.column("map's held-out sd (s)"), strict=True)
                if p is not None]
        sds = [float(t.std(ddof=1)) for t in repeats.times]
        map_error, baseline = are(sds, predicted), are(sds, reference)
        text = (f"Variability map: {label}, judged on configurations held out of its fit: average relative error "
                f"(paper 003, Eq. 1) {fmt_percent(map_error)} over {len(held)} configurations"
                if map_error is not None else
                f"Variability map: {label}; its relative error is undefined (every spread is zero)")
        if map_error is not None and baseline is not None:
            text += f", against {fmt_percent(baseline)} for the mean spread of the other configurations."
            if map_error >= baseline:
                section.warnings.append("The variability map predicts the spread of unseen configurations no "
                                        "better than their mean spread does: the spread here looks like noise "
                                        "without structure, and predicted spreads (as in the recommendation's) "
                                        "are guesses.")
        section.paragraphs.append(text if text.endswith(".") else text + ".")
        section.figures.append(Figure(
            "variability-map", "mapfit", "Variability map: held-out predicted against measured standard deviation",
            Table(("measured sd (s)", "predicted sd (s)"), held, "Held-out map predictions"),
            f"{label.capitalize()}; each point a configuration the map was fitted without. On the diagonal the map "
            "is exact.", {"x": "measured sd (s)", "y": "predicted sd (s)"}))
    needed = needed_table(spread)
    section.tables.append(needed)
    short = [(n, r, m) for n, r, m in zip(spread.column("runs needed for ±5%"), spread.column("runs"),
                                         spread.column("mean I/O time (s)"), strict=True) if n is not None and n > r]
    if short:
        extra_runs = sum(n - r for n, r, _ in short)
        extra_s = sum((n - r) * m for n, r, m in short)
        section.paragraphs.append(
            f"{len(spread) - len(short)} of {len(spread)} configurations are known to ±5% at 95% confidence with the "
            f"runs made; the other {len(short)} need {extra_runs} more runs in all (about {fmt_seconds(extra_s)} of "
            "I/O).")
    else:
        section.paragraphs.append("Every configuration is known to ±5% at 95% confidence with the runs made.")
    section.figures.append(Figure(
        "repeats-needed", "needed", "Runs a configuration needs for a mean within ±5%", needed,
        "Configurations by the runs their 95% interval of the mean needs to be within ±5% of it (Student t, from "
        "their own spread); the darker part already has that many runs.",
        {"label": "runs needed for ±5%", "count": "configurations", "done": "of which already measured that often"}))
    section.tables.append(spread)
    return section
