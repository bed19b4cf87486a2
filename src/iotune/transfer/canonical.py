"""Feature rows in a form that does not depend on how a configuration was encoded (issue 31).

The same configurations can reach the engine as one-hot columns or a level's index for a category, log2 or
the plain number for a count or a size, with derived columns (total vCPUs, the cluster's price) or without.
A model fitted in one of these encodings gives other answers than in another.  ``Canonical`` maps every
encoding of the same configurations to the same rows, learning the only scale it needs from the prior:

1. **Features, not columns.**  A group of adjacent 0/1 columns with exactly one 1 per row is one feature
   (a one-hot category); any other column is one feature.  A feature's levels are its distinct values.
2. **Constants out.**  Derived features (total vCPUs = cores per VM x VMs) stay: dropping those determined
   by the features before them made every encoding alike but lost scout time one workload in six at k = 5;
   kept and ranked, their presence moves a cell by at most a workload (docs/benchmarks.md, issue 31).
3. **One ordered column per feature.**  The levels are ordered by their effect in the prior (the mean, over
   the other workloads' successful runs at that level, of the log value less its workload's mean log value:
   target encoding) and placed at their rank, spread evenly over [0, 1].  The order is then the same for a
   category read one-hot or as an index, for a count read as log2 or plainly (any increasing map keeps the
   ranks), and it is the order the prior has measured: a GP over it is smooth where the other workloads were.
   Levels without a successful prior run come last, in their given order; without any prior the given order
   (a category's column order, a number's value) is kept.

What is lost: a feature's spacing (ranks are even) and an order the prior contradicts.  ``distance`` compares
workload rows feature by feature (their levels have no effect to order by: a new application is a new level).
It cannot tell a category given as an index from a number: a workload category read as an index is a number.
"""

from __future__ import annotations

import numpy as np

from iotune.transfer.errors import TransferError

DECIMALS = 9


def feature_groups(rows: np.ndarray) -> list[list[int]]:
    """Column indices of each feature of ``rows``: a one-hot group (adjacent 0/1 columns, exactly one 1 per
    row; the shortest such run from its first column) or a single column."""
    d = rows.shape[1]
    binary = np.all((rows == 0) | (rows == 1), axis=0) if len(rows) else np.zeros(d, dtype=bool)
    groups, start = [], 0
    while start < d:
        end = start + 1
        if binary[start]:
            for stop in range(start + 2, d + 1):
                if not binary[stop - 1]:
                    break
                if np.all(rows[:, start:stop].sum(axis=1) == 1):
                    end = stop
                    break
        groups.append(list(range(start, end)))
        start = end
    return groups


def _levels(rows: np.ndarray, group: list[int]) -> list[tuple]:
    return [tuple(r) for r in np.round(rows[:, group], DECIMALS)]


class Canonical:
    """Fitted on every feature row the engine will see (``rows``); ``transform`` maps any of them.

    ``effect_rows`` and ``effect_values`` (optional): rows of the prior's successful runs and their values
    less their workload's mean (log units), from which each level's effect is averaged.
    """

    def __init__(self, rows, effect_rows=None, effect_values=None):
        rows = np.asarray(rows, dtype=float)
        if rows.ndim != 2:
            raise TransferError(f"feature rows must be a 2-D array, got shape {rows.shape}")
        has_effect = effect_rows is not None and len(effect_rows) > 0
        effect_rows = np.asarray(effect_rows, dtype=float) if has_effect else np.zeros((0, rows.shape[1]))
        effect_values = np.asarray(effect_values, dtype=float) if has_effect else np.zeros(0)
        self.groups_: list[list[int]] = []
        self.positions_: list[dict[tuple, np.ndarray]] = []
        self.seen_: list[set[tuple]] = []  # per kept feature: its levels with an effect measured
        self.effects_: list[dict[tuple, float]] = []  # per kept feature: each measured level's effect
        for group in feature_groups(rows):
            levels = _levels(rows, group)
            if len(set(levels)) < 2:
                continue  # a constant
            self.groups_.append(group)
            effect = self._effect(group, effect_rows, effect_values)
            self.positions_.append(self._order(levels, group, effect))
            self.effects_.append(effect)
            self.seen_.append({level for level in _levels(effect_rows, group)})

    @staticmethod
    def _effect(group: list[int], effect_rows, effect_values) -> dict[tuple, float]:
        sums: dict[tuple, list[float]] = {}
        for level, value in zip(_levels(effect_rows, group), effect_values, strict=True):
            sums.setdefault(level, []).append(float(value))
        return {level: float(np.mean(v)) for level, v in sums.items()}

    @staticmethod
    def _order(levels: list[tuple], group: list[int], effect: dict[tuple, float]) -> dict[tuple, np.ndarray]:
        given = sorted(set(levels), key=_given_order(len(group)))
        order = sorted(given, key=lambda level: (level not in effect, effect.get(level, 0.0), given.index(level)))
        span = max(len(order) - 1, 1)
        return {level: np.array([i / span]) for i, level in enumerate(order)}

    def transform(self, rows) -> np.ndarray:
        """Canonical rows (one column per kept feature, in [0, 1]) of feature rows seen at fit."""
        rows = np.asarray(rows, dtype=float)
        rows = rows.reshape(1, -1) if rows.ndim == 1 else rows
        blocks = []
        for group, position in zip(self.groups_, self.positions_, strict=True):
            try:
                blocks.append(np.array([position[level] for level in _levels(rows, group)]).reshape(len(rows), -1))
            except KeyError as error:
                raise TransferError(f"a feature row with a level not seen when the encoding was fitted: "
                                    f"{error.args[0]}") from None
        return np.hstack(blocks) if blocks else np.zeros((len(rows), 0))

    def distance(self, rows, row) -> np.ndarray:
        """Distance of each of ``rows`` to ``row`` feature by feature, for workload rows (whose levels have no
        effect to order by): a category (a one-hot group, or a binary column) adds 2 when it differs and has
        more than two levels, 1 when binary (what a change adds to a squared distance over one-hot columns, and
        a binary column); a number of more than two levels adds its rank difference squared (ranks of its
        distinct values over [0, 1]: the same for log2 or plain), as a scaled number did; square-rooted."""
        rows = np.asarray(rows, dtype=float)
        row = np.asarray(row, dtype=float).reshape(1, -1)
        total = np.zeros(len(rows))
        for group, position in zip(self.groups_, self.positions_, strict=True):
            here = _levels(row, group)[0]
            there = _levels(rows, group)
            if len(group) > 1 or len(position) <= 2:
                weight = 2.0 if len(position) > 2 else 1.0
                total += weight * np.array([other != here for other in there], dtype=float)
            else:
                rank = {level: i / (len(position) - 1) for i, level in enumerate(sorted(position))}
                total += np.array([(rank[other] - rank[here]) ** 2 for other in there])
        return np.sqrt(total)


def _given_order(width: int):
    """The order of levels as given: a number's value; a one-hot category's column (its 1 leftmost first)."""
    if width == 1:
        return lambda level: level[0]
    return lambda level: level.index(1.0)
