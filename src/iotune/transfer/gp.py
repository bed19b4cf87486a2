"""A small Gaussian process for a handful of points: Matern 5/2, hyperparameters on a grid.

With 1 to 30 observations a gradient-fitted marginal likelihood overfits and
costs more than everything else in a tuning step, so the length scale and
the noise share are picked from a short grid by log marginal likelihood, and
the signal variance is profiled out in closed form (Rasmussen and Williams,
2006, Eq. 2.30 with the variance at its maximum ``y' K^-1 y / n``).  A
log-normal prior (sd 1 in ln units) around ``sqrt(d) / 2`` keeps the length
scale from collapsing on three points, where every length scale fits and the
shortest makes every unmeasured candidate look alike.  Features are expected
on a common scale (the engine maps each to [0, 1]; d features).
"""

from __future__ import annotations

import numpy as np

from iotune.transfer.errors import TransferError

LENGTH_SCALES = (0.25, 0.5, 1.0, 2.0, 4.0)  # times sqrt(d) / 2
NOISE_SHARES = (1e-4, 1e-2, 0.1)


def matern52(a: np.ndarray, b: np.ndarray, length_scale: float) -> np.ndarray:
    """Matern 5/2 correlation between the rows of ``a`` and ``b``."""
    d = np.sqrt(np.maximum(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1), 0.0)) * (np.sqrt(5.0) / length_scale)
    return (1.0 + d + d * d / 3.0) * np.exp(-d)


class GaussianProcess:
    """GP regression with a constant mean (``constant_mean``) or a zero mean, fitted with ``fit(X, y)``.

    ``noise_floor`` is a lower bound on the noise variance in the units of y
    (the spread of repeated runs); ``variance_floor`` a lower bound on the
    signal variance (what the caller knows the function can still deviate by,
    however flat the few points look).
    """

    def __init__(self, constant_mean: bool = True, noise_floor: float = 0.0, variance_floor: float = 0.0,
                 length_scales=LENGTH_SCALES, noise_shares=NOISE_SHARES):
        self.constant_mean = constant_mean
        self.noise_floor = noise_floor
        self.variance_floor = variance_floor
        self.length_scales = length_scales
        self.noise_shares = noise_shares

    def fit(self, X, y, counts=None) -> GaussianProcess:
        """Fit to rows ``X`` and values ``y``; ``counts`` (repeats averaged into each y) divide the noise."""
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float)
        counts = np.ones(len(y)) if counts is None else np.asarray(counts, dtype=float)
        self.mean_ = float(y.mean()) if self.constant_mean and len(y) else 0.0
        r = y - self.mean_
        n = len(y)
        best = None
        typical = max(np.sqrt(X.shape[1]) / 2.0, 0.25)
        for relative in self.length_scales:
            length_scale = relative * typical
            K0 = matern52(X, X, length_scale)
            for share in self.noise_shares:
                fitted = _profile(K0, r, share, counts)
                if fitted is None:
                    continue
                variance = fitted[2]
                if self.noise_floor > share * variance:
                    fitted = _profile(K0, r, self.noise_floor / variance, counts)
                    if fitted is None:
                        continue
                inverse_lower, alpha, variance = fitted
                quadratic = float(r @ alpha)
                variance = max(variance, self.variance_floor, 1e-12)
                logdet = -2.0 * np.log(np.diag(inverse_lower)).sum()
                score = (-0.5 * quadratic / variance - 0.5 * n * np.log(variance) - 0.5 * logdet
                         - 0.5 * np.log(relative) ** 2)
                if best is None or score > best[0]:
                    best = (score, length_scale, inverse_lower, alpha, variance)
        if best is None:
            raise TransferError(f"cannot fit the Gaussian process to {n} points: every kernel matrix tried is singular")
        _, self.length_scale_, self._inverse_lower, self._alpha, self.variance_ = best
        self._X = X
        return self

    def predict(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and standard deviation (of the latent function, without noise) at rows ``X``."""
        X = np.asarray(X, dtype=float)
        k = matern52(X, self._X, self.length_scale_)
        mean = self.mean_ + k @ self._alpha
        v = self._inverse_lower @ k.T
        var = self.variance_ * np.maximum(1.0 - (v * v).sum(axis=0), 1e-12)
        return mean, np.sqrt(var)

    def loo_squared_error(self) -> float:
        """Mean squared leave-one-out error at the fitted hyperparameters (Rasmussen and Williams, Eq. 5.12)."""
        diagonal = (self._inverse_lower**2).sum(axis=0)
        return float(np.mean((self._alpha / diagonal) ** 2))

    def loo_z_squared(self) -> float:
        """Mean squared leave-one-out error over its predicted variance: about 1 when the fitted GP is as sure
        as it should be, above 1 when it is overconfident (Rasmussen and Williams, Eq. 5.12)."""
        diagonal = (self._inverse_lower**2).sum(axis=0)
        return float(np.mean(self._alpha**2 / diagonal) / self.variance_)

    def calibrated(self, std: np.ndarray) -> np.ndarray:
        """``std`` widened by the root of the leave-one-out z^2 when above 1 (never narrowed)."""
        return std * np.sqrt(max(1.0, self.loo_z_squared()))


def _profile(K0: np.ndarray, r: np.ndarray, share: float, counts: np.ndarray):
    """Inverse Cholesky factor of the correlation plus noise, K^-1 r, and the profiled signal variance
    r' K^-1 r / n (for the few points of a tuning run an explicit inverse is cheapest)."""
    n = len(r)
    try:
        inverse_lower = np.linalg.inv(np.linalg.cholesky(K0 + np.diag(share / counts + 1e-9)))
    except np.linalg.LinAlgError:
        return None
    alpha = inverse_lower.T @ (inverse_lower @ r)
    return inverse_lower, alpha, max(float(r @ alpha) / max(n, 1), 1e-12)
