"""Per-feature length scales learnt from the prior: how far apart two levels of a feature are, for the engine.

Canonical rows (``iotune.transfer.canonical``) place every feature over [0, 1], so each counts as much as any
other in a distance, whatever its effect.  ``relevance`` learns a weight per feature (the inverse of its
length scale, relative to the others) from the other workloads' runs: one Matern 5/2 Gaussian process per
prior workload over the weighted canonical rows, the weights shared, chosen by the sum of the workloads' log
marginal likelihoods (signal variance profiled out, the noise share the best of a short grid: Rasmussen and
Williams, 2006, Eq. 2.30 and Sec. 5.4.1 on automatic relevance determination) in a coordinate search over a
grid.  A feature whose levels the prior's runs do not tell apart gets a small weight, one that moves them a
large one.  The rows are canonical, so the weights are the same for every encoding of the same configurations.
"""

from __future__ import annotations

import numpy as np

from iotune.transfer.gp import NOISE_SHARES, matern52

WEIGHTS = (0.5, 1.0, 2.0)
SWEEPS = 2
MOST_RUNS = 120  # per workload: a prior workload's runs beyond these are thinned evenly


def relevance(canonical, rows, values, labels) -> np.ndarray | None:
    """A weight per canonical column (mean square 1), or None with fewer than two prior workloads or no column.

    ``canonical``: a fitted ``Canonical`` or a ``selection.Reading`` of one (the engine's ``encoding="core"`` and
    ``"select"``: a weight per column of that reading); ``rows``, ``values``, ``labels``: the prior's successful
    runs (feature rows in the given encoding), their log values less their workload's mean, and their workloads."""
    if canonical is None or len(rows) == 0:
        return None
    X = canonical.transform(rows)
    d = X.shape[1]
    groups = []
    for label in dict.fromkeys(np.asarray(labels).tolist()):
        mine = np.flatnonzero(np.asarray(labels) == label)
        if len(mine) > MOST_RUNS:
            mine = mine[np.linspace(0, len(mine) - 1, MOST_RUNS).round().astype(int)]
        if len(mine) >= 3 and np.ptp(values[mine]) > 0:
            groups.append((X[mine], values[mine]))
    if d == 0 or len(groups) < 2:
        return None
    weights = np.ones(d)
    best = _evidence(groups, weights)
    for _ in range(SWEEPS):
        changed = False
        for f in range(d):
            for w in WEIGHTS:
                if w == weights[f]:
                    continue
                trial = weights.copy()
                trial[f] = w
                score = _evidence(groups, trial)
                if score > best + 1e-9:
                    best, weights, changed = score, trial, True
        if not changed:
            break
    return weights * np.sqrt(d / (weights**2).sum())


def _evidence(groups, weights: np.ndarray) -> float:
    """Sum over workloads of the log marginal likelihood of its runs, the length scale sqrt(d) / 2 over the
    weighted rows (the weights, normalised to mean square 1, set every feature's scale)."""
    d = len(weights)
    scaled = weights * np.sqrt(d / (weights**2).sum())
    length = max(np.sqrt(d) / 2.0, 0.25)
    total = 0.0
    for X, y in groups:
        K0 = matern52(X * scaled, X * scaled, length)
        n = len(y)
        r = y - y.mean()
        score = -np.inf
        for share in NOISE_SHARES:
            try:
                lower = np.linalg.cholesky(K0 + np.eye(n) * (share + 1e-9))
            except np.linalg.LinAlgError:
                continue
            z = np.linalg.solve(lower, r)
            variance = max(float(z @ z) / n, 1e-12)
            score = max(score, -0.5 * n * np.log(variance) - np.log(np.diag(lower)).sum())
        total += score
    return total
