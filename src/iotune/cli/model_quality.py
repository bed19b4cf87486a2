"""How the CLI states a trained model's quality: metrics with units, and a warning for a model that is worse
than predicting the mean (cross-validated R2 < 0)."""

from __future__ import annotations

TARGET_UNITS = {"time": "s", "bandwidth": "MiB/s", "cost": "currency units", "relative": "x default"}
"""The unit of each learning target (:data:`iotune.learn.model.TARGETS`)."""

METRIC_UNITS = {"mae": "{unit}", "rmse": "{unit}", "r2": "1 = perfect, 0 = the mean, < 0 worse", "mape": "%",
                "accuracy": "%, 100 - MAPE", "kendall_tau": "-1..1, rank agreement"}

REGRET_LEGEND = ("top1/top3 mean/max: regret, how much slower the configuration the predictor ranks first (top1) "
                 "or best of its top 3 (top3) is than the best measured one, as a fraction (0.10 = 10% slower), "
                 "for each workload left out of training; mean and max over the workloads")


def metric_label(metric: str, target: str) -> str:
    """``"mae (s)"`` for ``mae`` on ``time``: the metric's name with its unit."""
    unit = METRIC_UNITS.get(metric)
    if unit is None:
        return metric
    return f"{metric} ({unit.format(unit=TARGET_UNITS.get(target, target))})"


def metric_units(target: str) -> dict[str, str]:
    """The unit of each metric of a model of ``target`` (JSON output): mae/rmse in the target's unit, mape in %."""
    unit = TARGET_UNITS.get(target, target)
    return {"mae": unit, "rmse": unit, "r2": "1", "mape": "%", "accuracy": "%", "kendall_tau": "1"}


def cv_r2(model) -> float | None:
    """The cross-validated R2 of a :class:`~iotune.learn.TrainedModel` (None when it has none)."""
    value = ((getattr(model, "metrics", None) or {}).get("cv") or {}).get("r2")
    return value if isinstance(value, (int, float)) else None


def worse_than_mean(model) -> str | None:
    """A one-line warning when ``model`` predicts worse than the mean of its training data, else None."""
    r2 = cv_r2(model)
    if r2 is None or r2 >= 0:
        return None
    return (f"model {model.name!r} has a cross-validated R2 of {r2:.2f} (< 0): it predicts {model.target} worse than "
            "always predicting the mean, so its choices are no better than guesses; measure more configurations "
            "or repeats, or try another --predictor or --log-target (iotune evaluate compares them)")
