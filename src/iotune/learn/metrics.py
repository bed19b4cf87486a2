"""Accuracy and ranking metrics for the predictors (issue 3, part 6).

Errors (``mae``, ``rmse``, ``mape``, ``average_relative_error``) are >= 0,
lower = better; ``r2`` and ``kendall_tau`` are <= 1, higher = better.
``top_k_regret`` measures what a tuner cares about: how much slower than the
best measured configuration of a workload the configuration it picks is.
Every function takes the true values first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import kendalltau

from iotune.learn.errors import PredictorError
from iotune.learn.estimators._params import check_int


def mae(y_true: Any, y_pred: Any) -> float:
    """Mean absolute error, in the unit of y."""
    t, p = _pair("mae", y_true, y_pred)
    return float(np.mean(np.abs(p - t)))


def rmse(y_true: Any, y_pred: Any) -> float:
    """Root mean squared error, in the unit of y."""
    t, p = _pair("rmse", y_true, y_pred)
    return float(np.sqrt(np.mean((p - t) ** 2)))


def r2(y_true: Any, y_pred: Any) -> float:
    """Coefficient of determination, 1 - SS_res / SS_tot.

    A constant ``y_true`` makes SS_tot zero: the result is 1.0 for a perfect
    prediction and 0.0 otherwise (scikit-learn's convention).
    """
    t, p = _pair("r2", y_true, y_pred)
    ss_res = float(np.sum((t - p) ** 2))
    ss_tot = float(np.sum((t - t.mean()) ** 2))
    if ss_tot == 0.0:
        return 1.0 if ss_res == 0.0 else 0.0
    return 1.0 - ss_res / ss_tot


def average_relative_error(y_true: Any, y_pred: Any, *, skip_zero: bool = False) -> float:
    """The one relative error: mean of |pred - true| / |true|, a fraction (paper 003, Eq. 1).

    A zero target has no relative error: it raises ``PredictorError`` (a zero
    time or bandwidth is a failed measurement), or with ``skip_zero`` it is left
    out (a zero spread is a real value of a variability map); NaN when nothing
    is left.
    """
    t, p = _pair("average_relative_error", y_true, y_pred)
    zero = t == 0.0
    if zero.any() and not skip_zero:
        raise PredictorError("average_relative_error: y_true contains zeros; a relative error needs non-zero targets")
    if zero.all():
        return float("nan")
    return float(np.mean(np.abs(p[~zero] - t[~zero]) / np.abs(t[~zero])))


def mape(y_true: Any, y_pred: Any) -> float:
    """Mean absolute percentage error: 100 x :func:`average_relative_error`, in percent."""
    return 100.0 * average_relative_error(y_true, y_pred)


def kendall_tau(y_true: Any, y_pred: Any) -> float:
    """Kendall's tau-b between two orderings: 1 = same order, -1 = reversed.

    tau-b corrects for ties.  When either input is constant it is undefined;
    this returns 0.0 then (no ordering information), so it can be averaged.
    """
    t, p = _pair("kendall_tau", y_true, y_pred)
    if t.size < 2 or np.all(t == t[0]) or np.all(p == p[0]):
        return 0.0
    return float(kendalltau(t, p).statistic)


@dataclass(frozen=True)
class TopKRegret:
    """Per-group regrets of picking configurations by predicted score.

    ``top1[g]``: true time of the configuration predicted best in group ``g``,
    divided by the group's best true time, minus 1.  ``topk[g]``: the same for
    the best true time among the ``k`` configurations predicted best.  Both are
    fractions: 0 = the best configuration was picked, 0.25 = 25 % slower.
    """

    groups: np.ndarray
    top1: np.ndarray
    topk: np.ndarray
    k: int

    @property
    def mean_top1(self) -> float:
        """Mean of ``top1`` over the groups."""
        return float(np.mean(self.top1))

    @property
    def mean_topk(self) -> float:
        """Mean of ``topk`` over the groups."""
        return float(np.mean(self.topk))


def top_k_regret(groups: Any, y_true: Any, y_pred: Any, k: int = 1) -> TopKRegret:
    """Regret of choosing, in each group, the configurations with the lowest prediction.

    ``groups`` labels each row with its workload; ``y_true`` are measured times
    (seconds, > 0, lower = better); ``y_pred`` are predicted times or any score
    where lower = better (e.g. ``RankBoost.predict``).  A group with fewer than
    ``k`` rows uses all of them.  Ties in ``y_pred`` are broken pessimistically
    (the tied configuration with the worse true time counts as picked first), so
    a model cannot lower its regret by predicting the same value everywhere.
    Groups come out sorted (``np.unique`` order).
    """
    k = check_int("top_k_regret", "k", k, 1)
    t, p = _pair("top_k_regret", y_true, y_pred)
    g = np.asarray(groups)
    if g.shape != t.shape:
        raise PredictorError(f"top_k_regret: groups must have shape {t.shape}; got {g.shape}")
    if np.any(t <= 0.0):
        raise PredictorError("top_k_regret: y_true must be times > 0")
    labels, index = np.unique(g, return_inverse=True)
    order = np.lexsort((-t, p, index))  # by group, then prediction, then worst true time first
    bounds = np.searchsorted(index[order], np.arange(labels.size + 1))
    top1 = np.empty(labels.size)
    topk = np.empty(labels.size)
    for i in range(labels.size):
        picked = t[order[bounds[i] : bounds[i + 1]]]
        best = picked.min()
        top1[i] = picked[0] / best - 1.0
        topk[i] = picked[:k].min() / best - 1.0
    return TopKRegret(groups=labels, top1=top1, topk=topk, k=k)


def _pair(name: str, y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    """Return both inputs as finite 1-D float arrays of one non-zero length."""
    t = np.asarray(y_true, dtype=np.float64)
    p = np.asarray(y_pred, dtype=np.float64)
    if t.ndim != 1 or t.shape != p.shape or t.size == 0:
        raise PredictorError(
            f"{name}: y_true and y_pred must be 1-D of one non-zero length; got shapes {t.shape} and {p.shape}"
        )
    if not (np.isfinite(t).all() and np.isfinite(p).all()):
        raise PredictorError(f"{name}: inputs must be finite (no NaN or infinity)")
    return t, p
