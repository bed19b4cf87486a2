"""The system-configuration sub-space of one workload: level-index rows with the workload's columns fixed.

Paper 000, Algorithm 1 joins the application's characteristics WC^A with every
candidate system configuration IC^J.  Here the workload parameters' level
indices are fixed and the free (system) parameters are walked in mixed-radix
order (the last free parameter varies fastest), in numpy chunks, so that no
Python object is built per candidate.  A candidate is named by its *ordinal*,
its position in that walk.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

import numpy as np

from iotune.errors import SpaceError


class SubSpace:
    """Rows of level indices of ``space`` whose columns in ``fixed`` (column -> level index) never change."""

    def __init__(self, space, fixed: Mapping[int, int]):
        self.space = space
        self.fixed = dict(fixed)
        radices = [len(p.levels) for p in space.parameters]
        for column, level in self.fixed.items():
            if not 0 <= level < radices[column]:
                raise SpaceError(f"parameter {space.parameters[column].name!r}: level index {level} out of range")
        self.free = [j for j in range(len(radices)) if j not in self.fixed]
        self._radices = np.array([radices[j] for j in self.free], dtype=np.int64)

    @property
    def size(self) -> int:
        """Number of rows (product of the free parameters' level counts)."""
        return math.prod(int(r) for r in self._radices)

    def rows(self, ordinals: np.ndarray) -> np.ndarray:
        """Level-index rows (int64, rows x parameters) of the given ordinals."""
        ordinals = np.asarray(ordinals, dtype=np.int64)
        out = np.empty((len(ordinals), len(self.space.parameters)), dtype=np.int64)
        for column, level in self.fixed.items():
            out[:, column] = level
        rest = ordinals.copy()
        for position in range(len(self.free) - 1, -1, -1):
            rest, out[:, self.free[position]] = np.divmod(rest, self._radices[position])
        return out

    def chunks(self, chunk_size: int = 65_536) -> Iterator[tuple[int, np.ndarray]]:
        """``(first ordinal, rows)`` for consecutive blocks of at most ``chunk_size`` rows."""
        if chunk_size < 1:
            raise SpaceError(f"chunk_size must be a positive number of rows, got {chunk_size}")
        total = self.size
        for start in range(0, total, chunk_size):
            yield start, self.rows(np.arange(start, min(start + chunk_size, total), dtype=np.int64))
