"""A small box of discrete dimensions for the search heuristics (paper 004, Sec. IV, Table IV).

Independent of ``iotune.space`` so that an analytic model can be searched
without a YAML spec.  Every dimension is a finite ordered list of levels; a
point is a dict ``{name: value}`` and its *key* the tuple of level indices.
Continuous strategies work on the unit cube: level i of k covers
[i/k, (i+1)/k), so a uniform draw is uniform over levels (over exponents for a
log2 dimension).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from iotune.search.errors import SearchError


@dataclass(frozen=True)
class Integer:
    """Every integer from ``low`` to ``high`` inclusive."""

    name: str
    low: int
    high: int

    def __post_init__(self):
        if not (isinstance(self.low, int) and isinstance(self.high, int)) or self.low > self.high:
            raise SearchError(f"{self.name}: need integers low <= high, got {self.low!r}..{self.high!r}")

    @property
    def levels(self) -> tuple:
        return tuple(range(self.low, self.high + 1))


@dataclass(frozen=True)
class Log2Integer:
    """The powers of two from ``low`` to ``high`` inclusive (both powers of two)."""

    name: str
    low: int
    high: int

    def __post_init__(self):
        for bound in (self.low, self.high):
            if not isinstance(bound, int) or bound < 1 or bound & (bound - 1):
                raise SearchError(f"{self.name}: bounds must be powers of two, got {bound!r}")
        if self.low > self.high:
            raise SearchError(f"{self.name}: low {self.low} > high {self.high}")

    @property
    def levels(self) -> tuple:
        return tuple(2**e for e in range(int(math.log2(self.low)), int(math.log2(self.high)) + 1))


@dataclass(frozen=True)
class Categorical:
    """One of ``choices``; their order only matters to the continuous relaxation."""

    name: str
    choices: tuple

    def __post_init__(self):
        object.__setattr__(self, "choices", tuple(self.choices))
        if not self.choices or len(set(self.choices)) != len(self.choices):
            raise SearchError(f"{self.name}: choices must be distinct and non-empty, got {self.choices!r}")

    @property
    def levels(self) -> tuple:
        return self.choices


class Box:
    """The product of ``dimensions``; ``size`` is the number of distinct points."""

    def __init__(self, dimensions: Sequence):
        self.dimensions = tuple(dimensions)
        if not self.dimensions:
            raise SearchError("a search box needs at least one dimension")
        names = [d.name for d in self.dimensions]
        if len(set(names)) != len(names):
            raise SearchError(f"dimension names must be distinct, got {names}")
        self.names = tuple(names)
        self._levels = [d.levels for d in self.dimensions]
        self._index = [{v: i for i, v in enumerate(levels)} for levels in self._levels]
        self.counts = np.array([len(levels) for levels in self._levels])
        self.size = math.prod(int(c) for c in self.counts)

    def __repr__(self) -> str:
        return f"Box({list(self.dimensions)!r})"

    @property
    def ndim(self) -> int:
        return len(self.dimensions)

    def point(self, key) -> dict:
        """The point ``{name: value}`` of a tuple of level indices."""
        return {d.name: levels[int(i)] for d, levels, i in zip(self.dimensions, self._levels, key)}

    def key(self, point: dict) -> tuple:
        """The tuple of level indices of ``point``; SearchError if a value is not a level."""
        try:
            return tuple(index[point[name]] for name, index in zip(self.names, self._index))
        except (KeyError, TypeError):
            raise SearchError(f"{point!r} is not a point of {self.names}") from None

    def clip(self, key) -> tuple:
        """Index vector rounded and clipped to the grid."""
        return tuple(int(v) for v in np.clip(np.rint(key), 0, self.counts - 1))

    def from_unit(self, u) -> tuple:
        """The key of the level cell holding ``u`` in [0, 1]^ndim (values outside are clipped)."""
        u = np.clip(np.asarray(u, dtype=float), 0.0, 1.0)
        return tuple(int(v) for v in np.minimum(np.floor(u * self.counts), self.counts - 1))

    def to_unit(self, key) -> np.ndarray:
        """The centre of ``key``'s cell in the unit cube."""
        return (np.asarray(key, dtype=float) + 0.5) / self.counts

    def sample(self, rng: np.random.Generator) -> tuple:
        """A key drawn uniformly over the grid."""
        return tuple(int(rng.integers(c)) for c in self.counts)

    def keys(self) -> Iterator[tuple]:
        """Every key, last dimension fastest."""
        return (tuple(int(i) for i in k) for k in np.ndindex(*self.counts))
