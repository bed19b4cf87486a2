"""A space seen as a box of level indices, for the search heuristics (paper 004, Sec. IV).

Every parameter with two or more levels is a dimension; a point is a tuple of
level indices (its *key*).  Continuous strategies work on the unit cube: level
i of k covers [i/k, (i+1)/k), so a uniform draw is uniform over levels (over
exponents for a size's doublings).  A point becomes a configuration through
:meth:`Space.configuration`, which applies ``when:`` rules (two points that
differ only in an inactive parameter are one configuration) and constraints
(a point that breaks one has no configuration).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from iotune.errors import SpaceError
from iotune.space import Configuration, Space


class Grid:
    """The level-index box of a space's parameters with more than one level."""

    def __init__(self, space: Space):
        self.space = space
        self.parameters = tuple(p for p in space.parameters if len(p.levels) > 1)
        self.counts = np.array([len(p.levels) for p in self.parameters], dtype=np.int64)
        self.categorical = np.array([p.type == "categorical" for p in self.parameters], dtype=bool)
        self.size = math.prod(int(c) for c in self.counts)

    @property
    def ndim(self) -> int:
        return len(self.parameters)

    def configuration(self, key) -> Configuration | None:
        """The configuration at ``key``, or None when a constraint of the space refuses it."""
        values = {p.name: p.levels[int(i)] for p, i in zip(self.parameters, key, strict=True)}
        try:
            return self.space.configuration(values)
        except SpaceError:
            return None

    def key(self, configuration) -> tuple[int, ...]:
        """The level indices of a configuration (an inactive parameter at its default's index)."""
        out = []
        for parameter in self.parameters:
            value = configuration.get(parameter.name)
            out.append(parameter.levels.index(parameter.default if value is None else value))
        return tuple(out)

    def clip(self, key) -> tuple[int, ...]:
        """Index vector rounded and clipped to the grid."""
        return tuple(int(v) for v in np.clip(np.rint(np.asarray(key, dtype=float)), 0, self.counts - 1))

    def from_unit(self, u) -> tuple[int, ...]:
        """The key of the level cell holding ``u`` in [0, 1]^ndim (values outside are clipped)."""
        u = np.clip(np.asarray(u, dtype=float), 0.0, 1.0)
        return tuple(int(v) for v in np.minimum(np.floor(u * self.counts), self.counts - 1))

    def to_unit(self, key) -> np.ndarray:
        """The centre of ``key``'s cell in the unit cube."""
        return (np.asarray(key, dtype=float) + 0.5) / self.counts

    def sample(self, rng: np.random.Generator) -> tuple[int, ...]:
        """A key drawn uniformly over the grid."""
        return tuple(int(rng.integers(c)) for c in self.counts)

    def keys(self) -> Iterator[tuple[int, ...]]:
        """Every key, last dimension fastest."""
        return (tuple(int(i) for i in k) for k in np.ndindex(*self.counts))
