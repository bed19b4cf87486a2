"""The one place where configurations become numbers for models, for training and for scoring alike.

A column of values becomes numbers in one of four ways (:data:`FEATURE_KINDS`, :func:`encode_levels`):
one-hot over its levels, its level's index, log2 of a positive number, or the number.  A space's
:class:`Encoder` and a measurement table's features (:mod:`iotune.transfer.table`) both go through them.

Columns of a space, in parameter order:

- size: log2 of the bytes (I/O behaviour scales with orders of magnitude);
- integer: the value, or log2 of it with ``scale: log2`` (stripe and node counts);
- boolean: 0 or 1;
- categorical: one column per level (one-hot, default) or the level's index (ordinal);
- a parameter with a ``when`` rule also gets ``<name>:active`` (1 or 0); while
  inactive, its value columns hold the encoding of its default, so that models
  that cannot take missing values still see a number.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from iotune.errors import SpaceError

CATEGORICAL_MODES = ("onehot", "ordinal")
FEATURE_KINDS = ("categorical", "ordinal", "log2", "numeric")
"""How a column of values becomes numbers: ``categorical`` one-hot over its levels, ``ordinal`` the index of
its level, ``log2`` log2 of a positive number (sizes and counts: I/O behaviour scales with orders of
magnitude), ``numeric`` the number."""


def column_names(name: str, kind: str, levels: Sequence = ()) -> list[str]:
    """The names of the columns a value of ``name`` becomes: ``name=level`` per level (categorical),
    ``log2(name)``, or ``name``."""
    if kind == "categorical":
        return [f"{name}={level}" for level in levels]
    return [f"log2({name})"] if kind == "log2" else [name]


def encode_levels(kind: str, levels: Sequence) -> np.ndarray:
    """One row of numbers per level (levels x columns): categorical and ordinal levels are labels in order,
    log2 and numeric levels are the numbers themselves (log2 ones > 0: the caller checks)."""
    if kind not in FEATURE_KINDS:
        raise SpaceError(f"feature kind must be one of {', '.join(FEATURE_KINDS)}, got {kind!r}")
    if kind == "categorical":
        return np.eye(len(levels))
    if kind == "ordinal":
        return np.arange(len(levels), dtype=float)[:, None]
    numbers = np.array(levels, dtype=float).reshape(-1, 1)
    return np.log2(numbers) if kind == "log2" else numbers


class Encoder:
    """Maps configurations (or rows of level indices) of one space to a float matrix."""

    def __init__(self, space, categorical: str = "onehot"):
        if categorical not in CATEGORICAL_MODES:
            raise SpaceError(f"categorical encoding must be one of {', '.join(CATEGORICAL_MODES)}, got {categorical!r}")
        self.space = space
        self.categorical = categorical
        self._tables: list[np.ndarray] = []  # per parameter: levels x value columns
        self._default_index: list[int] = []
        self._conditional: list[bool] = []
        names: list[str] = []
        for parameter in space.parameters:
            table, columns = self._table(parameter)
            self._tables.append(table)
            self._default_index.append(parameter.levels.index(parameter.default))
            self._conditional.append(bool(parameter.when))
            names.extend(columns)
            if parameter.when:
                names.append(f"{parameter.name}:active")
        self.feature_names = tuple(names)

    def _table(self, parameter) -> tuple[np.ndarray, list[str]]:
        levels = parameter.levels
        if parameter.type == "size":  # a size of 0 bytes counts as 1 (log2 0)
            kind, levels = "log2", np.maximum(np.array(levels, dtype=float), 1.0)
        elif parameter.type == "integer" and parameter.scale == "log2":
            kind = "log2"
        elif parameter.type in ("integer", "boolean"):
            kind = "numeric"
        else:
            kind = "ordinal" if self.categorical == "ordinal" else "categorical"
        return encode_levels(kind, levels), column_names(parameter.name, kind, levels)

    def columns_of(self, role: str) -> list[int]:
        """Indices of the feature columns of the parameters of ``role`` ("workload" or "system")."""
        out: list[int] = []
        at = 0
        for parameter, table in zip(self.space.parameters, self._tables, strict=True):
            width = table.shape[1] + bool(parameter.when)
            if parameter.role == role:
                out.extend(range(at, at + width))
            at += width
        return out

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    def transform(self, configurations: Iterable[Mapping[str, Any]]) -> np.ndarray:
        """Encode configurations (Configuration objects or plain dicts as stored); one row each."""
        rows = []
        for configuration in configurations:
            index_row, active_row = [], []
            for j, parameter in enumerate(self.space.parameters):
                value = configuration.get(parameter.name)
                if value is None:
                    index_row.append(self._default_index[j])
                    active_row.append(False)
                    continue
                try:
                    index_row.append(parameter.levels.index(parameter.normalise(value)))
                except ValueError:
                    raise SpaceError(f"parameter {parameter.name!r}: {value!r} is not one of its levels "
                                     f"({', '.join(map(parameter.format, parameter.levels))})") from None
                active_row.append(True)
            rows.append((index_row, active_row))
        if not rows:
            return np.empty((0, self.n_features))
        indices = np.array([r[0] for r in rows], dtype=np.int64)
        active = np.array([r[1] for r in rows], dtype=bool)
        return self.transform_indices(indices, active)

    def transform_indices(self, indices: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
        """Encode rows of level indices (as :meth:`Space.level_index_chunks` yields), vectorised.

        ``active`` (rows x parameters, bool) marks parameters switched off by
        their ``when`` rule; their value columns get the default's encoding.
        """
        indices = np.asarray(indices, dtype=np.int64)
        if active is None:
            active = np.ones(indices.shape, dtype=bool)
        out = np.empty((len(indices), self.n_features))
        at = 0
        for j, table in enumerate(self._tables):
            column = indices[:, j]
            if self._conditional[j]:
                column = np.where(active[:, j], column, self._default_index[j])
            width = table.shape[1]
            out[:, at : at + width] = table[column]
            at += width
            if self._conditional[j]:
                out[:, at] = active[:, j]
                at += 1
        return out
