"""A Gaussian process over the target's candidates whose kernel is the other workloads' covariance.

The other workloads' log values over the candidates (``level``, J x n) say
which candidates move together: where one workload is slow, similar ones are
slow too.  Their weighted covariance across workloads is the kernel of a GP on
the target's log values (a multi-task GP with a free-form task covariance,
Bonilla et al. 2007, here estimated from the prior instead of fitted):

    y = mu + m + f + r + noise,   f ~ N(0, s^2 K),   K = sum_j w_j d_j d_j'

where m = sum_j w_j level_j is the weighted mean shape, d_j = (level_j - its
mean) - (m - its mean) is workload j's deviation from it, mu is the target's
own level (vague: sd ``LEVEL_SD``), r a Matern residual over the features of
variance misfit^2 (what no other workload shows), and s a scale chosen from
``SCALES`` by marginal likelihood (a target more or less unlike the average).
The weights w are the experts' (workload similarity times fit to the target's
runs).  Nothing in it reads a feature's encoding but the residual, which reads
the engine's canonical rows, so the model is invariant to it.
"""

from __future__ import annotations

import math

import numpy as np

from iotune.transfer.errors import TransferError
from iotune.transfer.gp import matern52

SCALES = (0.5, 1.0, 2.0)
LEVEL_SD = 5.0  # log units: the target's overall level is unknown before it runs


def covariance_posterior(level: np.ndarray, weights: np.ndarray, unit: np.ndarray, misfit: float,
                         index: np.ndarray, values: np.ndarray, counts: np.ndarray,
                         noise: float, calibrate: bool = True) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Posterior mean and standard deviation (log units) of every candidate's value given the target's runs, how
    surprising the runs are under the model (their mean leave-one-out z^2: about 1 when it explains them) and
    its mean squared leave-one-out error (to compare with another model's):
    ``index`` (candidates run), ``values`` (their mean log values), ``counts`` (runs averaged into each).
    ``level`` (J x n) the other workloads' log values, ``weights`` (J, summing to 1), ``unit`` the candidates'
    feature rows in [0, 1] for the residual, ``misfit`` its standard deviation, ``noise`` a run's.
    ``calibrate``: the variance times the runs' mean leave-one-out z^2 when above 1 (a prior that explains the
    target's runs worse than it claims is as much less sure of the rest)."""
    # Never an n x n matrix (a space may have 50,000 candidates): the candidates' covariance with the k runs
    # and its diagonal are enough, from the J x n deviations and the features of the runs.
    mean_shape = weights @ level
    deviation = (level - level.mean(axis=1, keepdims=True)) - (mean_shape - mean_shape.mean())
    index = np.asarray(index, dtype=int)
    shared_cross = (deviation.T * weights) @ deviation[:, index]  # n x k
    shared_diagonal = weights @ deviation**2
    residual_cross = matern52(unit, unit[index], 0.5 * math.sqrt(unit.shape[1])) * misfit**2
    r = np.asarray(values, dtype=float) - mean_shape[index]
    jitter = np.diag(noise**2 / np.asarray(counts, dtype=float)) + 1e-9 * np.eye(len(index))
    best = None
    for scale in SCALES:
        cross = scale**2 * shared_cross + residual_cross + LEVEL_SD**2
        try:
            lower = np.linalg.cholesky(cross[index] + jitter)
        except np.linalg.LinAlgError:
            continue
        alpha = np.linalg.solve(lower.T, np.linalg.solve(lower, r))
        # log marginal likelihood with a log-normal prior (sd 1) on the scale around 1
        score = -0.5 * float(r @ alpha) - float(np.log(np.diag(lower)).sum()) - 0.5 * math.log(scale) ** 2
        if best is None or score > best[0]:
            best = (score, scale, cross, lower, alpha)
    if best is None:
        raise TransferError("no scale of the prior's covariance fits the target's runs (a singular kernel)")
    _, scale, cross, lower, alpha = best
    mean = mean_shape + cross @ alpha
    v = np.linalg.solve(lower, cross.T)
    prior_variance = scale**2 * shared_diagonal + misfit**2 + LEVEL_SD**2
    variance = np.maximum(prior_variance - (v * v).sum(axis=0), 1e-12)
    inverse = np.linalg.solve(lower.T, np.linalg.solve(lower, np.eye(len(index))))
    # leave-one-out residuals alpha_i / [K^-1]_ii, variances 1 / [K^-1]_ii (Rasmussen and Williams, Eq. 5.12)
    surprise = float(np.mean(alpha**2 / np.diag(inverse)))
    loo_error = float(np.mean((alpha / np.diag(inverse)) ** 2))
    if calibrate:
        variance = variance * max(1.0, surprise)
    return mean, np.sqrt(variance), surprise, loo_error
