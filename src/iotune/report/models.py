"""Model quality: cross-validated predicted against measured I/O time, errors in seconds, and a warning when a
model does worse than predicting the mean.

Folds hold out whole configurations (all repeats of a configuration are in the
same fold), so the error is that of predicting a configuration never measured,
which is what recommending does; k-fold over rows would let a model see other
repeats of the very configuration it is tested on.  The reference is the mean
of the training folds' times, predicted for every held-out row: a model whose
root mean squared error is not below that reference's has learnt nothing
usable.
"""

from __future__ import annotations

import numpy as np

from iotune.errors import IotuneError
from iotune.report.tables import Figure, Section, Table, fmt_number
from iotune.stored import StoredStudy

PREDICTORS: tuple[tuple[str, dict, str], ...] = (("cart", {"log_target": True}, "CART on log time"),
              ("forest", {"log_target": True, "n_estimators": 30}, "random forest (30 trees) on log time"),
              ("linear", {}, "linear regression"))
FOLDS = 5
SEED = 0
UNITS = {"time": "s", "bandwidth": "MiB/s", "cost": "currency units", "relative": "x default"}


def configuration_folds(config_keys, folds: int = FOLDS, seed: int = SEED) -> np.ndarray:
    """Fold of each row, every repeat of a configuration in one fold: the same folds as `iotune train`'s."""
    from iotune.learn.without_pandas import import_sklearn

    import_sklearn()  # scikit-learn: loaded when used, without pandas
    from iotune.learn.scoring import configuration_folds as folds_of

    return folds_of(config_keys, folds, seed)


def out_of_fold(dataset, predictor: str, params: dict, folds: int = FOLDS, seed: int = SEED):
    """Held-out predictions of ``predictor`` for every row, and of the training folds' mean (the reference)."""
    fold = configuration_folds(dataset.config_keys, min(folds, np.unique(dataset.config_keys).size), seed)
    from iotune.learn.scoring import build

    predicted = np.empty(dataset.n_samples)
    reference = np.empty(dataset.n_samples)
    for k in np.unique(fold):
        test = fold == k
        estimator = build(predictor, dataset, seed, **params).fit(dataset.X[~test], dataset.y[~test])
        predicted[test] = np.asarray(estimator.predict(dataset.X[test]), dtype=float)
        reference[test] = float(np.mean(dataset.y[~test]))
    return predicted, reference


def errors(measured, predicted) -> dict[str, float]:
    """MAE and RMSE (units of the values), median relative error (%) and R^2 of predictions."""
    measured, predicted = np.asarray(measured, float), np.asarray(predicted, float)
    residual = predicted - measured
    total = float(np.sum((measured - measured.mean()) ** 2))
    nonzero = measured != 0
    return {"mae": float(np.mean(np.abs(residual))), "rmse": float(np.sqrt(np.mean(residual ** 2))),
            "median_relative_error_pct": float(np.median(np.abs(residual[nonzero] / measured[nonzero])) * 100)
            if nonzero.any() else float("nan"),
            "r2": 1.0 - float(np.sum(residual ** 2)) / total if total > 0 else float("nan")}


def verdict(model: dict, reference: dict) -> str:
    """"better than the mean" only when the held-out R² is above 0 and the RMSE below the training folds'
    mean's; else "worse than the mean" (R² at or below 0 is no better than predicting the mean)."""
    better = model["r2"] > 0 and model["rmse"] < reference["rmse"]  # NaN R² (constant times): not better
    return "better than the mean" if better else "worse than the mean"


def memo_key(target: str, predictor: str, params: dict) -> tuple:
    """Key of held-out predictions of I/O-time models in :attr:`StudyData.memo`."""
    return ("held-out", target, predictor, tuple(sorted(params.items())))


def held_out(dataset, predictor: str, params: dict, folds: int = FOLDS, seed: int = SEED, fits=None):
    """:func:`out_of_fold`'s predictions and reference, read back from ``fits`` (a
    :class:`~iotune.report.fits.FitCache`) when it holds them for these rows, predictor, folds and seed."""
    if fits is None:
        return out_of_fold(dataset, predictor, params, folds, seed)
    from iotune.report import fits as cache

    name = cache.key("held-out predictions", predictor=predictor, params=params, folds=folds, seed=seed,
                     rows=cache.digest(dataset.data_hash, dataset.target, dataset.categorical, dataset.options,
                                       list(dataset.feature_names), dataset.config_keys.tolist()))
    return fits.held_out(name, dataset.n_samples, lambda: out_of_fold(dataset, predictor, params, folds, seed),
                         FIT_ERRORS)


FIT_ERRORS = (IotuneError, ValueError, np.linalg.LinAlgError)
"""What a model that cannot be fitted raises: the report says so and goes on."""


def quality(dataset, predictors=PREDICTORS, folds: int = FOLDS, seed: int = SEED,
            memo: dict | None = None, fits=None) -> tuple[Table, Table, list[str]]:
    """The error table (one row per predictor and one for the mean), the predictions table and problems met.

    ``memo`` receives each predictor's held-out predictions (:func:`memo_key`); ``fits`` keeps them between
    reports (:func:`held_out`).
    """
    rows, points, problems = [], [], []
    reference = None
    for name, params, label in predictors:
        try:
            predicted, reference = held_out(dataset, name, params, folds, seed, fits)
            if memo is not None:
                memo[memo_key(dataset.target, name, params)] = predicted
        except FIT_ERRORS as error:
            problems.append(f"{label}: could not be fitted ({error})")
            continue
        e = errors(dataset.y, predicted)
        base = errors(dataset.y, reference)
        rows.append((label, e["mae"], e["rmse"], e["median_relative_error_pct"], e["r2"], base["rmse"],
                     verdict(e, base)))
        points += [(label, float(m), float(p)) for m, p in zip(dataset.y, predicted, strict=True)]
    if reference is not None:
        base = errors(dataset.y, reference)
        rows.append(("the training folds' mean (reference)", base["mae"], base["rmse"],
                     base["median_relative_error_pct"], base["r2"], base["rmse"], "reference"))
    table = Table(("model", "MAE (s)", "RMSE (s)", "median relative error (%)", "R²", "RMSE of the mean (s)",
                   "verdict"), rows, "Cross-validated errors of I/O time predictions",
                  f"{min(folds, np.unique(dataset.config_keys).size)} folds, each holding out whole configurations "
                  "(every repeat of them). MAE: mean absolute error; RMSE: root mean squared error; R² below 0 "
                  "means worse than always predicting the mean.")
    predictions = Table(("model", "measured I/O time (s)", "predicted I/O time (s)"), points,
                        "Held-out predictions")
    return table, predictions, problems


def stored_models_table(study: StoredStudy) -> Table:
    """The study's stored models with the cross-validated metrics they were saved with (units of their target)."""
    rows = []
    for record in study.store.list_models(study.id):
        cv = (record.metrics or {}).get("cv") or {}
        unit = UNITS.get(record.target, "")
        rows.append((record.name, record.predictor, f"{record.target} ({unit})", record.n_samples,
                     cv.get("mae"), cv.get("rmse"), cv.get("r2"), record.created_at[:19].replace("T", " ")))
    return Table(("stored model", "predictor", "target (unit)", "trials trained on", "CV MAE (target unit)",
                  "CV RMSE (target unit)", "CV R²", "trained (UTC)"), rows, "Models stored with this study",
                 "Metrics as `iotune train` computed them: the mean over folds, each holding out whole "
                 "configurations (as above; a model trained before iotune held out configurations was scored on "
                 "single trials, which flatters it).")


def models_section(data) -> Section:
    """Cross-validated predicted against measured time, errors in seconds, and warnings for useless models."""
    from iotune.learn import Dataset

    title = "Model quality"
    configurations = {t.config_key for t in data.measured}
    if len(configurations) < 3:
        return Section.nothing("models", title, f"{len(configurations)} configuration(s) measured: a model needs at "
                               "least 3 to be cross-validated.")
    section = Section("models", title)
    dataset = Dataset.from_study(data.study, "time")
    table, predictions, problems = quality(dataset, memo=data.memo, fits=data.fits)
    section.warnings += problems
    for row in table.rows:
        if row[6] == "worse than the mean":
            section.warnings.append(f"{row[0]} predicts I/O time no better than the mean of the training runs "
                                    f"(held-out R² {fmt_number(row[4])}; RMSE {fmt_number(row[2])} s against the "
                                    f"mean's {fmt_number(row[5])} s): do not trust its recommendations.")
    section.paragraphs.append(
        f"Each model is trained on {dataset.n_samples} trials ({len(configurations)} configurations) minus one "
        "fold and predicts the I/O time (seconds, write and read summed) of the configurations held out.")
    section.tables.append(table)
    stored = stored_models_table(data.study)
    if stored.rows:
        section.tables.append(stored)
        for row in stored.rows:
            if row[6] is not None and row[6] < 0:
                section.warnings.append(f"Stored model {row[0]} has a cross-validated R² of {row[6]:.2f}: it "
                                        "predicts worse than the mean, and `iotune recommend` uses it.")
    if predictions.rows:
        section.figures.append(Figure(
            "model-quality", "predicted", "Cross-validated predicted against measured I/O time", predictions,
            "One point per held-out trial; on the diagonal the prediction is exact. Log scales: I/O times span "
            "orders of magnitude.", {"panel": "model", "x": "measured I/O time (s)", "y": "predicted I/O time (s)"}))
    return section
