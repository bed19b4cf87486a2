"""The encoding as part of the model's selection: per target, the reading of the features that best predicts the
prior workloads' own runs (issue 31).

Every candidate reading is built from the canonical features (``iotune.transfer.canonical``: one feature per
one-hot group or column, constants out, levels ordered by their effect in the prior), so a category one-hot or
as an index and a count as log2 or plain give the same candidates, the same scores and the same choice:

- ``rank``: each feature one column, its levels at their rank over [0, 1] (the canonical rows, the default);
- ``effect``: its levels at their effect (the prior's mean log value at the level less the workload's mean),
  scaled to [0, 1], so two levels that do the same sit together (levels without a prior effect at 1);
- ``few``: a feature of three or four levels one-hot (each column 1/sqrt(2), so a change counts 1 as a full
  step of a ranked feature), the others ranked: small categories have no order to learn;
- ``core``: ranked, without the features determined by the others kept (total vCPUs = cores per VM x VMs, the
  cluster's price: from the last feature back, dropped while the others fix its level on every row), so a
  table with derived features and one without give the same rows.

The score of a reading is how well a Gaussian process over it, fitted to a few runs of one prior workload,
ranks that workload's other runs (Spearman's rho, averaged over ``DRAWS`` draws of ``FEW`` runs and over the
prior workloads), the levels ordered by the effects of the *other* prior workloads only: the target's runs are
never read, and no prior workload orders the levels it is scored on.  Ties keep the earlier reading (``rank``).
"""

from __future__ import annotations

import numpy as np

from iotune.transfer import evidence
from iotune.transfer.canonical import Canonical, _levels
from iotune.transfer.errors import TransferError
from iotune.transfer.gp import GaussianProcess

READINGS = ("rank", "effect", "few", "core")
FEW = 8  # runs of a prior workload a model is fitted to: a tuning run's first few
DRAWS = 4
MOST_RUNS = 60  # per workload: runs beyond these are thinned evenly
ONE_HOT_LEVELS = (3, 4)


class Reading:
    """Rows of one reading (``kind``, one of ``READINGS``) of a fitted ``Canonical``: ``transform`` as
    ``Canonical.transform``."""

    def __init__(self, canonical: Canonical, kind: str, keep: list[int] | None = None):
        if kind not in READINGS:
            raise TransferError(f"reading must be one of {', '.join(READINGS)}, got {kind!r}")
        self.canonical = canonical
        self.kind = kind
        self.keep = list(range(len(canonical.groups_))) if keep is None else keep

    def transform(self, rows) -> np.ndarray:
        rows = np.asarray(rows, dtype=float)
        rows = rows.reshape(1, -1) if rows.ndim == 1 else rows
        canonical = self.canonical
        blocks = []
        for i in self.keep:
            group, position = canonical.groups_[i], canonical.positions_[i]
            levels = _levels(rows, group)
            unknown = [level for level in levels if level not in position]
            if unknown:
                raise TransferError(f"a feature row with a level not seen when the encoding was fitted: {unknown[0]}")
            if self.kind == "effect":
                spaced = _spaced(canonical.effects_[i], position)
                blocks.append(np.array([[spaced[level]] for level in levels]))
            elif self.kind == "few" and len(position) in ONE_HOT_LEVELS:
                order = sorted(position, key=lambda level: float(position[level][0]))
                blocks.append(np.array([[float(level == other) / np.sqrt(2.0) for other in order]
                                        for level in levels]))
            else:
                blocks.append(np.array([position[level] for level in levels]).reshape(len(rows), -1))
        return np.hstack(blocks) if blocks else np.zeros((len(rows), 0))


def _spaced(effect: dict[tuple, float], position: dict[tuple, np.ndarray]) -> dict[tuple, float]:
    """Each level at its effect scaled to [0, 1] (levels without one at 1; all at their rank when the
    effects are all equal)."""
    known = [effect[level] for level in position if level in effect]
    low, high = (min(known), max(known)) if known else (0.0, 0.0)
    if high <= low:
        return {level: float(position[level][0]) for level in position}
    return {level: (effect[level] - low) / (high - low) if level in effect else 1.0 for level in position}


def determined(canonical: Canonical, rows) -> list[int]:
    """The canonical features kept by ``core``: from the last back, a feature is dropped when the others still
    kept fix its level on every one of ``rows`` (one feature at least is kept)."""
    rows = np.asarray(rows, dtype=float)
    codes = np.array([[hash(level) for level in _levels(rows, group)] for group in canonical.groups_]).T \
        if canonical.groups_ else np.zeros((len(rows), 0))
    keep = list(range(len(canonical.groups_)))
    for i in reversed(range(len(canonical.groups_))):
        others = [j for j in keep if j != i]
        if not others:
            break
        seen: dict[tuple, int] = {}
        if all(seen.setdefault(tuple(row[others]), row[i]) == row[i] for row in codes):
            keep = others
    return keep


def readings(canonical: Canonical, core: list[int]) -> list[Reading]:
    """Every reading of a fitted ``Canonical`` (``core`` keeping the features ``core``: ``determined``)."""
    return [Reading(canonical, kind, core if kind == "core" else None) for kind in READINGS]


def choose(rows, effect_rows, effect_values, labels) -> tuple[Reading, dict[str, float]]:
    """The reading of ``rows`` (every feature row the engine sees) that best predicts the prior's runs, and every
    reading's score.  ``effect_rows``, ``effect_values``, ``labels``: the prior's successful runs (rows, log values
    less their workload's mean, workloads).  Without two prior workloads of ``FEW`` + 2 runs: ``rank``."""
    rows = np.asarray(rows, dtype=float)
    effect_rows = np.asarray(effect_rows, dtype=float).reshape(-1, rows.shape[1])
    effect_values = np.asarray(effect_values, dtype=float)
    labels = np.asarray(labels)
    whole = Canonical(rows, effect_rows, effect_values)
    core = determined(whole, rows)
    groups = []
    for label in dict.fromkeys(labels.tolist()):
        mine = np.flatnonzero(labels == label)
        if len(mine) > MOST_RUNS:
            mine = mine[np.linspace(0, len(mine) - 1, MOST_RUNS).round().astype(int)]
        if len(mine) >= FEW + 2 and np.ptp(effect_values[mine]) > 0:
            groups.append((label, mine))
    if len(groups) < 2:
        return Reading(whole, "rank"), {}
    totals = dict.fromkeys(READINGS, 0.0)
    for g, (label, mine) in enumerate(groups):
        others = labels != label
        canonical = Canonical(rows, effect_rows[others], effect_values[others])
        X = {reading.kind: reading.transform(effect_rows[mine]) for reading in readings(canonical, core)}
        y = effect_values[mine]
        for draw in range(DRAWS):
            pick = np.random.default_rng([g, draw]).permutation(len(mine))
            train, test = pick[:FEW], pick[FEW:]
            for kind in READINGS:
                if X[kind].shape[1] == 0:
                    continue
                gp = GaussianProcess(constant_mean=True).fit(X[kind][train], y[train])
                rho = evidence.agreement(gp.predict(X[kind][test])[0], y[test])
                totals[kind] += 0.0 if rho is None else rho / (len(groups) * DRAWS)
    best = max(READINGS, key=lambda kind: (round(totals[kind], 9), -READINGS.index(kind)))
    return Reading(whole, best, core if best == "core" else None), totals
