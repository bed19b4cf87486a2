"""Input checks and data preparation shared by the variability predictors.

scikit-learn's own checks run first, so messages match what its estimator
checks expect; their ``ValueError`` is re-raised as :class:`PredictorError`.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import validate_data

from iotune.learn.errors import PredictorError


def check_fit_data(estimator, X, y, min_samples: int = 2):
    """Validate ``X`` (n, m) and ``y`` (n,) as float64 arrays and set ``n_features_in_``."""
    try:
        X, y = validate_data(estimator, X, y, dtype=np.float64, y_numeric=True)
    except ValueError as exc:
        raise PredictorError(" ".join(str(exc).split())) from exc
    if X.shape[0] < min_samples:
        raise PredictorError(
            f"{type(estimator).__name__} needs at least {min_samples} samples, "
            f"got n_samples = {X.shape[0]} (1 sample is not enough)"
        )
    return X, y


def check_predict_data(estimator, X):
    """Validate query points against the number of features seen in fit."""
    try:
        return validate_data(estimator, X, dtype=np.float64, reset=False)
    except ValueError as exc:
        raise PredictorError(" ".join(str(exc).split())) from exc


def is_real(value) -> bool:
    """True for a finite int or float (not bool)."""
    numeric = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    return numeric and bool(np.isfinite(value))


def merge_duplicates(X, y):
    """Merge repeated points, averaging their values; keeps first-occurrence order.

    Order matters for linear Shepard, whose neighbour ties are broken by index.
    """
    _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
    if first.size == X.shape[0]:
        return X, y
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    groups = rank[inverse.ravel()]
    sums = np.bincount(groups, weights=y, minlength=order.size)
    counts = np.bincount(groups, minlength=order.size)
    return X[first[order]], sums / counts


def diameter(X, block: int = 512) -> float:
    """Exact maximum pairwise Euclidean distance, by blocks of the Gram matrix (memory O(block * n))."""
    X = X - X.mean(axis=0)
    sq = np.einsum("ij,ij->i", X, X)
    best = 0.0
    for start in range(0, X.shape[0], block):
        rest = X[start:]
        d2 = X[start : start + block] @ rest.T
        d2 *= -2.0
        d2 += sq[start:]
        d2 += sq[start : start + block, None]
        i, j = np.unravel_index(np.argmax(d2), d2.shape)
        best = max(best, float(np.linalg.norm(X[start + i] - rest[j])))
    return best
