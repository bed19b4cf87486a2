"""The database of past results (paper 004, Sec. IV): no point is ever evaluated twice."""

from __future__ import annotations

import math


class Memo:
    """Values by point key.  ``len`` is the number of distinct points evaluated.

    Pass one Memo to several strategies (or searches) to share their results:
    a point already in it is answered from it and not counted as an evaluation.
    """

    def __init__(self):
        self._values: dict[tuple, float] = {}

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key) -> bool:
        return tuple(key) in self._values

    def __getitem__(self, key) -> float:
        return self._values[tuple(key)]

    def record(self, key, value) -> bool:
        """Store ``value`` for ``key``; False (and nothing changes) if the key was already there."""
        key = tuple(key)
        if key in self._values:
            return False
        self._values[key] = float(value)
        return True

    def items(self):
        return self._values.items()

    def best(self) -> tuple[tuple | None, float]:
        """The key with the lowest value, and that value ((None, inf) when empty)."""
        if not self._values:
            return None, math.inf
        key = min(self._values, key=self._values.__getitem__)
        return key, self._values[key]
