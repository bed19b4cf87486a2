"""Other workloads' measurements, laid over the target's candidate set.

``Prior`` holds the raw rows (one per run).  ``PriorMatrix`` is what the
engine computes from it for one candidate set: per prior workload, the log
value at every candidate (the mean of its repeats where it was measured, an
inverse-distance average of its three nearest measured configurations where it
was not or failed), that vector standardised (the workload's "shape", free of
its scale), its regret at every candidate, where it failed, the pooled spread
of repeated runs, and each workload's feature row.  A workload with successful
runs on fewer than two of the candidates is left out: its values there would
all be guesses.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iotune.transfer.errors import TransferError

NEIGHBOURS = 3


@dataclass(frozen=True)
class Prior:
    """Runs of other workloads: row i ran configuration ``configurations[i]`` (feature row) of workload
    ``workloads[i]`` (any label) and took ``values[i]`` (positive, lower is better; ignored when
    ``failed[i]``).  ``workload_features`` (one row per run, optional) describe each run's workload."""

    workloads: np.ndarray
    configurations: np.ndarray
    values: np.ndarray
    failed: np.ndarray
    workload_features: np.ndarray | None = None

    def __post_init__(self):
        configurations = np.asarray(self.configurations, dtype=float)
        m = len(configurations)
        if configurations.ndim != 2:
            raise TransferError("prior configurations must be a 2-D array of feature rows, "
                                f"got shape {configurations.shape}")
        workloads = np.asarray(self.workloads).reshape(-1)
        values = np.asarray(self.values, dtype=float).reshape(-1)
        failed = np.asarray(self.failed, dtype=bool).reshape(-1)
        if not (len(workloads) == len(values) == len(failed) == m):
            raise TransferError(f"prior arrays disagree in length: {len(workloads)} workloads, {m} configurations, "
                                f"{len(values)} values, {len(failed)} failed flags")
        if not np.isfinite(configurations).all():
            raise TransferError("prior configurations must be finite numbers")
        ok = ~failed
        if np.isnan(values[ok]).any() or (values[ok] <= 0).any() or np.isinf(values[ok]).any():
            bad = values[ok][~(np.isfinite(values[ok]) & (values[ok] > 0))][0]
            raise TransferError(f"prior values of runs that did not fail must be positive and finite, got {bad!r}")
        features = None
        if self.workload_features is not None:
            features = np.asarray(self.workload_features, dtype=float)
            if features.ndim != 2 or len(features) != m or not np.isfinite(features).all():
                raise TransferError(f"prior workload_features must be {m} finite rows, got shape {features.shape}")
        object.__setattr__(self, "workloads", workloads)
        object.__setattr__(self, "configurations", configurations)
        object.__setattr__(self, "values", np.where(failed, np.nan, values))
        object.__setattr__(self, "failed", failed)
        object.__setattr__(self, "workload_features", features)

    @classmethod
    def empty(cls, dimensions: int) -> Prior:
        """No prior knowledge, for configurations of ``dimensions`` features."""
        return cls(np.array([]), np.zeros((0, dimensions)), np.array([]), np.array([], dtype=bool))

    @classmethod
    def from_table(cls, table, objective: str, exclude=()) -> Prior:
        """Every run of ``table`` (a ``MeasuredTable``) except those of the workload indices in ``exclude``."""
        w, c, r = np.nonzero(table.present)
        keep = ~np.isin(w, list(exclude))
        w, c, r = w[keep], c[keep], r[keep]
        return cls(w, table.configuration_features[c], table.values[objective][w, c, r], table.failed[w, c, r],
                   table.workload_features[w])


@dataclass
class PriorMatrix:
    """A prior laid over ``n`` candidates for ``J`` workloads (see the module docstring).

    ``level`` (J, n): log values (failed cells: their neighbours' average, as unmeasured ones);
    ``shape`` (J, n): ``level`` standardised per workload; ``regret`` (J, n):
    value / the workload's best - 1, +inf where it failed; ``failed`` (J, n);
    ``features`` (J, dw) or None; ``spread``: median over workloads of the
    standard deviation of ``level`` (a typical range of a workload in log
    units); ``noise``: pooled standard deviation of repeated runs in log
    units (None without repeats).
    """

    level: np.ndarray
    shape: np.ndarray
    regret: np.ndarray
    failed: np.ndarray
    features: np.ndarray | None
    spread: float
    noise: float | None
    misfit: float | None = None

    @property
    def workloads(self) -> int:
        return len(self.level)


def _transform(values: np.ndarray, log: bool) -> np.ndarray:
    return np.log(values) if log else values


def lay_over(prior: Prior, candidates: np.ndarray, scale, log: bool = True, normalise: str = "zscore",
             offset: np.ndarray | None = None) -> PriorMatrix:
    """The PriorMatrix of ``prior`` over ``candidates``; ``scale(rows)`` maps feature rows to [0, 1].
    ``offset`` (log units, per candidate): a known log price added to ``level`` for the regrets only."""
    n = len(candidates)
    index = {tuple(np.round(row, 9)): i for i, row in enumerate(candidates)}
    unit_candidates = scale(candidates)
    levels, failures, features = [], [], []
    deviations, dof = 0.0, 0
    for label in _unique(prior.workloads):
        rows = np.flatnonzero(prior.workloads == label)
        ok = rows[~prior.failed[rows]]
        if len(np.unique(prior.values[ok])) < 2:
            continue
        y = _transform(prior.values[ok], log)
        where = np.array([index.get(tuple(np.round(prior.configurations[i], 9)), -1) for i in ok])
        sums = np.bincount(where[where >= 0], weights=y[where >= 0], minlength=n)
        counts = np.bincount(where[where >= 0], minlength=n)
        if np.count_nonzero(counts) < 2:
            continue  # a workload measured on (almost) none of the candidates says nothing reliable about them
        level = np.full(n, np.nan)
        level[counts > 0] = sums[counts > 0] / counts[counts > 0]
        repeated = where >= 0
        if repeated.any():
            residual = y[repeated] - level[where[repeated]]
            deviations += float((residual**2).sum())
            dof += int(repeated.sum() - np.count_nonzero(counts))
        failed = np.zeros(n, dtype=bool)
        for i in rows[prior.failed[rows]]:
            c = index.get(tuple(np.round(prior.configurations[i], 9)), -1)
            if c >= 0 and counts[c] == 0:
                failed[c] = True
        # A failed cell has no value: its level is what its neighbours suggest (the value had it run),
        # and the failure itself is kept apart, in ``failed``.
        missing = np.isnan(level)
        if missing.any():
            level[missing] = _nearest_average(scale(prior.configurations[ok]), y, unit_candidates[missing])
        levels.append(level)
        failures.append(failed)
        if prior.workload_features is not None:
            features.append(prior.workload_features[rows[0]])
    if not levels:
        return PriorMatrix(np.zeros((0, n)), np.zeros((0, n)), np.zeros((0, n)), np.zeros((0, n), dtype=bool),
                           None, 1.0, None)
    level = np.array(levels)
    failed = np.array(failures)
    centre = level.mean(axis=1, keepdims=True)
    spread = level.std(axis=1, keepdims=True)
    spread[spread == 0] = 1.0
    shape = (level - centre) / spread
    if normalise == "rank":
        from scipy.stats import norm  # scipy.stats: loaded when used (half a second; a report may not need it)

        ranks = level.argsort(axis=1, kind="stable").argsort(axis=1, kind="stable")
        shape = norm.ppf((ranks + 0.5) / n)
    priced = level if offset is None else level + offset
    best = np.where(failed, np.inf, priced).min(axis=1, keepdims=True)
    if log:
        regret = np.exp(priced - best) - 1.0
    else:
        regret = (priced - best) / np.maximum(np.abs(best), 1e-12)
    regret[failed] = np.inf
    noise = float(np.sqrt(deviations / dof)) if dof > 0 else None
    return PriorMatrix(level, shape, regret, failed, np.array(features) if features else None,
                       float(np.median(spread)), noise, _misfit(level, shape, failed))


def _misfit(level: np.ndarray, shape: np.ndarray, failed: np.ndarray) -> float | None:
    """Median over workloads i of min over j != i of the residual sd of level_i ~ a + b shape_j (b >= 0),
    over the candidates where neither failed."""
    J = len(level)
    if J < 2:
        return None
    best = []
    for i in range(J):
        mask = (~failed[i] & ~failed).astype(float)
        mask[i] = 0.0
        count = mask.sum(axis=1)
        usable = count >= 3
        if not usable.any():
            continue
        count = np.maximum(count, 1.0)
        z_mean = (mask * shape).sum(axis=1) / count
        y_mean = (mask * level[i]).sum(axis=1) / count
        zc = (shape - z_mean[:, None]) * mask
        yc = (level[i] - y_mean[:, None]) * mask
        slope = np.maximum((zc * yc).sum(axis=1) / np.maximum((zc * zc).sum(axis=1), 1e-12), 0.0)
        residual = np.sqrt(((yc - slope[:, None] * zc) ** 2).sum(axis=1) / count)
        best.append(float(residual[usable].min()))
    return float(np.median(best)) if best else None


def _unique(labels: np.ndarray) -> list:
    seen: dict = {}
    for label in labels.tolist():
        seen.setdefault(label, None)
    return list(seen)


def _nearest_average(known: np.ndarray, values: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Inverse-distance average of the values of the NEIGHBOURS nearest known rows to each query row
    (queries in blocks, so memory stays bounded for large candidate sets)."""
    k = min(NEIGHBOURS, len(known))
    out = np.empty(len(queries))
    block = max(1, 2**22 // max(len(known) * known.shape[1], 1))
    for start in range(0, len(queries), block):
        part = queries[start:start + block]
        d = np.sqrt(((part[:, None, :] - known[None, :, :]) ** 2).sum(-1))
        nearest = np.argsort(d, axis=1, kind="stable")[:, :k]
        weights = 1.0 / np.maximum(np.take_along_axis(d, nearest, axis=1), 1e-9)
        out[start:start + block] = (weights * values[nearest]).sum(axis=1) / weights.sum(axis=1)
    return out
