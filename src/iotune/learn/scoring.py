"""How well a predictor does on a dataset: k-fold error metrics and leave-one-workload-out regret.

Error metrics (MAE, RMSE in the target's unit; R2; MAPE in percent; Kendall
tau) are computed on each of k folds and averaged.  Folds hold out whole
configurations (:func:`configuration_folds`, as the report's model check
does): with folds over trials, the repeats of one configuration sit on both
sides of a fold, and a tree that memorises them scores well while it predicts
an unmeasured configuration worse than the mean.  "accuracy" is 100 - MAPE:
our reading of the accuracy paper 001 (Sec. V-B, Table III) reports beside
MAE and RMSE, which it does not define.  Ranking predictors (RankBoost, the
random baseline) give scores, not values: only Kendall tau applies to them.

Regret (issue 3): each workload in turn is held out of training; among its
measured configurations (repeats averaged), the predictor's best (top-1) or
best of its three best (top-3) is compared with the measured best:
measured time / best measured time - 1, a fraction (0.25 = 25 % slower).
"""

from __future__ import annotations

import numpy as np

from iotune.learn.baseline import RandomScores
from iotune.learn.errors import PredictorError
from iotune.learn.metrics import kendall_tau, mae, mape, r2, rmse, top_k_regret
from iotune.learn.registry import accepted_parameters, is_ranker, make_predictor

ERROR_METRICS = ("mae", "rmse", "r2", "mape", "accuracy", "kendall_tau")


def build(name: str, dataset, seed: int = 0, **params):
    """A fresh estimator for ``dataset``: ``random`` or a registered predictor, seeded where it takes a seed.

    RankBoost learns "higher is better" for bandwidth and relative targets.
    ``log_target=True`` fits a regressor to log(y) and predicts exp of its
    output: I/O times span orders of magnitude (a bad hint can be 50 times
    slower), and on a log scale those few slow runs no longer dominate the
    squared error that trees split and prune by.  Rankers ignore it.
    """
    log_target = params.pop("log_target", False)
    if name == "random":
        return RandomScores(random_state=params.get("random_state", seed))
    accepted = accepted_parameters(name)
    if "random_state" in accepted:
        params.setdefault("random_state", seed)
    if "greater_is_better" in accepted:
        params.setdefault("greater_is_better", not dataset.lower_is_better)
    estimator = make_predictor(name, **params)
    if log_target and not is_ranker(estimator):
        from sklearn.compose import TransformedTargetRegressor

        return TransformedTargetRegressor(estimator, func=np.log, inverse_func=np.exp, check_inverse=False)
    return estimator


def error_metrics(ranker: bool, y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, float | None]:
    """The metrics of one set of predictions; None where they do not apply (rankers' scores, zero targets)."""
    out: dict[str, float | None] = dict.fromkeys(ERROR_METRICS)
    out["kendall_tau"] = kendall_tau(y_true, y_pred)
    if ranker:
        return out
    out["mae"], out["rmse"], out["r2"] = mae(y_true, y_pred), rmse(y_true, y_pred), r2(y_true, y_pred)
    try:
        out["mape"] = error = mape(y_true, y_pred)
        out["accuracy"] = 100.0 - error
    except PredictorError:
        pass
    return out


def in_sample(estimator, dataset) -> dict[str, float | None]:
    """Metrics of a fitted estimator on its own training rows (optimistic: for comparison with CV)."""
    return error_metrics(is_ranker(estimator), dataset.y, estimator.predict(dataset.X))


def configuration_folds(config_keys, folds: int = 5, seed: int = 0) -> np.ndarray:
    """Fold index of each row: configurations shuffled with ``seed`` and dealt round-robin to ``folds`` folds,
    so every repeat of a configuration is in the same fold."""
    keys = np.asarray(config_keys)
    unique = np.unique(keys)
    order = np.random.default_rng(seed).permutation(unique.size)
    fold_of = {unique[i]: position % folds for position, i in enumerate(order)}
    return np.array([fold_of[k] for k in keys], dtype=int)


def cross_validate(name: str, dataset, folds: int = 5, seed: int = 0, **params) -> dict[str, float | None]:
    """Mean over ``min(folds, configurations)`` folds, each holding out whole configurations, of
    :func:`error_metrics`; all None with fewer than 2 configurations."""
    configurations = np.unique(dataset.config_keys).size
    if configurations < 2:
        return dict.fromkeys(ERROR_METRICS)
    fold = configuration_folds(dataset.config_keys, min(folds, configurations), seed)
    per_fold = []
    for k in np.unique(fold):
        test = fold == k
        estimator = build(name, dataset, seed, **params).fit(dataset.X[~test], dataset.y[~test])
        per_fold.append(error_metrics(is_ranker(estimator), dataset.y[test], estimator.predict(dataset.X[test])))
    return {
        key: None if any(f[key] is None for f in per_fold) else float(np.mean([f[key] for f in per_fold]))
        for key in ERROR_METRICS
    }


def workload_regret(name: str, dataset, k: int = 3, seed: int = 0, **params) -> dict[str, float | int | None]:
    """Leave-one-workload-out top-1 and top-k regret: mean and max over workloads (fractions), and
    ``workloads``, how many were held out (an int).

    Needs at least two workloads (one to train on); otherwise every value is None.
    """
    keys = ("top1_mean", "top1_max", f"top{k}_mean", f"top{k}_max", "workloads")
    labels = np.unique(dataset.groups)
    if labels.size < 2:
        return dict.fromkeys(keys)
    top1, topk = [], []
    for label in labels:
        held = dataset.groups == label
        estimator = build(name, dataset, seed, **params).fit(dataset.X[~held], dataset.y[~held])
        configs, first, inverse = np.unique(dataset.config_keys[held], return_index=True, return_inverse=True)
        times = np.bincount(inverse, weights=dataset.times[held]) / np.bincount(inverse)
        scores = np.asarray(estimator.predict(dataset.X[held][first]), dtype=float)
        if not dataset.lower_is_better:
            scores = -scores
        regret = top_k_regret(np.zeros(configs.size), times, scores, k=k)
        top1.append(regret.top1[0])
        topk.append(regret.topk[0])
    return dict(zip(keys, (float(np.mean(top1)), float(np.max(top1)), float(np.mean(topk)),
                           float(np.max(topk)), int(labels.size)), strict=True))
