"""A configuration space: typed parameters, activation rules and constraints.

Every assignment of one level per parameter is a point of the mixed-radix
product (the first parameter is the most significant digit, so the order is
``itertools.product``'s).  Nothing here materialises that product: enumeration,
counting and sampling walk it in numpy chunks of level indices.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from iotune.errors import SpaceError
from iotune.space.configuration import Configuration, digest
from iotune.space.expressions import Expression, ExpressionError
from iotune.space.parameter import Parameter
from iotune.space.reader import space_arguments
from iotune.yamlio import load_yaml, read_yaml_file, where

if TYPE_CHECKING:
    import numpy as np

SMALL_SPACE = 100_000
CHUNK = 65_536
CHUNK_CELLS = 4 * 2**20
"""Most level indices in one chunk of a walk (int64: 32 MiB)."""
WALK_CELLS = 20_000_000
"""Most level indices (assignments x parameters) a walk of the space examines, a few seconds' work."""
WALK_LIMIT = 10_000_000
"""Most assignments a walk of the space scans; fewer when it has many parameters (:data:`WALK_CELLS`).
A larger space is sampled, never walked whole."""
WAY_OUT = ("give fewer levels, or sample it instead of walking it (sampler random or lhs: "
           "iotune bench --sampler random)")


class Space:
    """Parameters with their levels, ``when:`` rules and constraints, loaded from a YAML spec.

    ``source`` and ``lines`` (YAML line by spec path) only serve error messages.
    A spec whose every assignment is invalid loads; it simply has no valid
    configuration.
    """

    def __init__(
        self,
        name: str,
        parameters: Sequence[Parameter],
        constraints: Sequence[str] = (),
        description: str = "",
        *,
        source: str = "<python>",
        lines: Mapping[tuple, int] | None = None,
    ):
        self.name = name
        self.description = description
        self.parameters: tuple[Parameter, ...] = tuple(parameters)
        self.constraints: tuple[str, ...] = tuple(constraints)
        self.source = source
        self._lines = dict(lines or {})
        for index, parameter in enumerate(self.parameters):
            if parameter.line is not None:
                self._lines.setdefault(("parameters", index), parameter.line)
        self._index: dict[str, int] = {}
        for index, parameter in enumerate(self.parameters):
            if parameter.name in self._index:
                first = self._index[parameter.name]
                raise SpaceError(
                    f"{self._where('parameters', index, 'name')}: parameter {parameter.name!r} is declared twice "
                    f"(first as parameter #{first + 1})"
                )
            self._index[parameter.name] = index
        kinds = {p.name: p.kind for p in self.parameters}
        self._when: dict[int, Expression] = {}
        for index, parameter in enumerate(self.parameters):
            if parameter.when is not None:
                self._when[index] = self._compile(
                    parameter.when, kinds, f"parameter {parameter.name!r}: when", ("parameters", index, "when")
                )
                if parameter.name in self._when[index].names:
                    raise SpaceError(
                        f"{self._where('parameters', index, 'when')}: parameter {parameter.name!r}: "
                        f"when {parameter.when!r} refers to the parameter itself"
                    )
        self._when_order = self._activation_order()
        self._constraints = [
            self._compile(text, kinds, "constraint", ("constraints", index))
            for index, text in enumerate(self.constraints)
        ]
        self._radices = tuple(len(p.levels) for p in self.parameters)
        self._referenced = {name for e in [*self._when.values(), *self._constraints] for name in e.names}

    @functools.cached_property
    def _level_arrays(self) -> list:
        """Each parameter's levels as a numpy array, made when first evaluated (numpy loads only then)."""
        return [_level_array(p) for p in self.parameters]

    def _where(self, *path: Any) -> str:
        return where(self.source, self._lines, tuple(path))

    def _compile(self, text: Any, kinds: Mapping[str, str], what: str, path: tuple) -> Expression:
        try:
            return Expression(text, kinds)
        except ExpressionError as exc:
            raise SpaceError(f"{self._where(*path)}: {what} {exc}") from None

    def _activation_order(self) -> list[int]:
        """Parameters with a ``when`` rule, ordered so each rule sees final values of what it reads."""
        order: list[int] = []
        placed: set[int] = set()
        pending = sorted(self._when)
        while pending:
            ready = [
                i
                for i in pending
                if all(self._index[n] not in self._when or self._index[n] in placed for n in self._when[i].names)
            ]
            if not ready:
                cycle = ", ".join(self.parameters[i].name for i in pending)
                raise SpaceError(
                    f"{self._where('parameters', pending[0], 'when')}: "
                    f"when rules of {cycle} depend on each other in a cycle"
                )
            order.extend(ready)
            placed.update(ready)
            pending = [i for i in pending if i not in placed]
        return order

    @classmethod
    def from_yaml(cls, path: str | Path) -> Space:
        """Load a spec file; errors name the file and line."""
        data, lines = read_yaml_file(path, "space spec")
        return cls(**space_arguments(data, str(path), lines))

    @classmethod
    def from_text(cls, text: str, source: str = "<string>") -> Space:
        """Load a spec from YAML text; ``source`` names it in errors."""
        data, lines = load_yaml(text, source)
        return cls(**space_arguments(data, source, lines))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> Space:
        """Build a space from already-parsed spec data (same keys as the YAML)."""
        return cls(**space_arguments(data, source, {}))

    def to_dict(self) -> dict[str, Any]:
        """Plain spec data; :meth:`from_dict` of it gives an equal space (ranges appear as levels)."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": [p.to_dict() for p in self.parameters],
            "constraints": list(self.constraints),
        }

    def to_yaml(self) -> str:
        """The spec as YAML text, readable by :meth:`from_text`."""
        return yaml.safe_dump(self.to_dict(), sort_keys=False, allow_unicode=True)

    @property
    def hash(self) -> str:
        """Identity of the space definition: sha1 of the canonical JSON of :meth:`to_dict`, 16 hex digits."""
        return digest(self.to_dict())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Space):
            return self.to_dict() == other.to_dict()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.hash)

    def __repr__(self) -> str:
        return f"Space({self.name!r}, {len(self.parameters)} parameters, size={how_many(self.size)})"

    def parameter(self, name: str) -> Parameter:
        """The parameter called ``name``."""
        if name not in self._index:
            raise SpaceError(f"space {self.name!r} has no parameter {name!r} (known: {', '.join(self._index)})")
        return self.parameters[self._index[name]]

    @property
    def workload_parameters(self) -> tuple[Parameter, ...]:
        """Parameters that describe the application (role ``workload``), in spec order."""
        return tuple(p for p in self.parameters if p.role == "workload")

    @property
    def system_parameters(self) -> tuple[Parameter, ...]:
        """Tunable system options (role ``system``), in spec order."""
        return tuple(p for p in self.parameters if p.role == "system")

    @property
    def size(self) -> int:
        """Number of assignments (product of level counts) before validity; an exact, possibly huge int."""
        return math.prod(self._radices)

    def configuration(self, mapping: Mapping[str, Any]) -> Configuration:
        """Validate user values and return the configuration they denote.

        Values are normalised (``"4MiB"`` -> 4194304); missing or None values
        take the parameter's default; a parameter whose ``when`` is False gets
        None whatever was given for it (silently: callers may pass a full
        mapping of a workload without knowing which options apply).  Unknown
        names and violated constraints raise SpaceError.
        """
        if not isinstance(mapping, Mapping):
            raise SpaceError(f"a configuration must be a mapping of parameter names to values, got {mapping!r}")
        unknown = [str(name) for name in mapping if name not in self._index]
        if unknown:
            raise SpaceError(
                f"space {self.name!r} has no parameter {', '.join(map(repr, unknown))} "
                f"(known: {', '.join(self._index)})"
            )
        values: dict[str, Any] = {}
        for parameter in self.parameters:
            given = mapping.get(parameter.name)
            values[parameter.name] = parameter.default if given is None else parameter.normalise(given)
        for index in self._when_order:
            if not self._when[index].evaluate(values):
                values[self.parameters[index].name] = None
        for text, expression in zip(self.constraints, self._constraints, strict=True):
            if not expression.evaluate(values):
                involved = ", ".join(f"{n}={self.parameter(n).format(values[n])}" for n in expression.names)
                raise SpaceError(f"configuration violates constraint {text!r} with {involved}")
        return Configuration(self, values)

    def is_valid(self, mapping: Mapping[str, Any]) -> bool:
        """True when :meth:`configuration` would accept ``mapping``."""
        try:
            self.configuration(mapping)
        except SpaceError:
            return False
        return True

    def encoder(self, categorical: str = "onehot"):
        """An :class:`~iotune.space.encoding.Encoder`: configurations to a float matrix for models."""
        from iotune.space.encoding import Encoder

        return Encoder(self, categorical)

    def encode(self, configurations, categorical: str = "onehot") -> np.ndarray:
        """Encode configurations (or stored config dicts) as model features; see :mod:`iotune.space.encoding`."""
        return self.encoder(categorical).transform(configurations)

    def active_mask(self, index_array: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For rows of level indices: which parameters are active (rows x parameters) and which rows are valid."""
        return self._evaluate(self._check_indices(index_array))

    @property
    def chunk_rows(self) -> int:
        """Rows of a chunk of level indices: :data:`CHUNK`, fewer for a space of many parameters (at most
        :data:`CHUNK_CELLS` indices, 32 MiB, per chunk)."""
        return max(1, min(CHUNK, CHUNK_CELLS // max(1, len(self.parameters))))

    def level_index_chunks(self, chunk_size: int | None = None) -> Iterator[np.ndarray]:
        """All assignments in mixed-radix order, as int64 arrays of level indices, ``chunk_size`` rows each
        (default :attr:`chunk_rows`).

        Columns follow :attr:`parameters`; the last parameter varies fastest.
        """
        chunk_size = self.chunk_rows if chunk_size is None else chunk_size
        if chunk_size < 1:
            raise SpaceError(f"chunk_size must be a positive number of rows, got {chunk_size}")
        total = self.size
        start = 0
        while start < total:
            rows = min(chunk_size, total - start)
            yield self._indices_from(start, rows)
            start += rows

    def _indices_from(self, start: int, rows: int) -> np.ndarray:
        """Digits of assignments ``start .. start + rows - 1``; exact for any ``start`` (Python int)."""
        import numpy as np

        digits = []
        rest = start
        for radix in reversed(self._radices):
            rest, digit = divmod(rest, radix)
            digits.append(digit)
        digits.reverse()
        out = np.empty((rows, len(self._radices)), dtype=np.int64)
        carry = np.arange(rows, dtype=np.int64)
        for column in range(len(self._radices) - 1, -1, -1):
            carry, out[:, column] = np.divmod(carry + digits[column], self._radices[column])
        return out

    def valid_mask(self, index_array: np.ndarray, *, distinct: bool = False) -> np.ndarray:
        """Validity of each row of level indices, with the semantics of :meth:`is_valid`, vectorised.

        With ``distinct=True`` a row also needs every inactive parameter at
        level index 0, so that each configuration is counted once (as
        :meth:`enumerate` does).
        """
        import numpy as np

        indices = self._check_indices(index_array)
        active, valid = self._evaluate(indices)
        if distinct:
            valid &= np.all(active | (indices == 0), axis=1)
        return valid

    def _check_indices(self, index_array: Any) -> np.ndarray:
        import numpy as np

        indices = np.asarray(index_array)
        if indices.ndim != 2 or indices.shape[1] != len(self.parameters) or indices.dtype.kind not in "iu":
            raise SpaceError(
                f"index array must be integers of shape (rows, {len(self.parameters)}), "
                f"got {indices.dtype} of shape {indices.shape}"
            )
        if indices.size and ((indices < 0).any() or (indices >= np.array(self._radices)).any()):
            raise SpaceError(f"level indices must lie in 0 .. level count - 1 (level counts: {list(self._radices)})")
        return indices

    def _evaluate(self, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per-row activity of each parameter (rows x parameters) and validity of each row."""
        import numpy as np

        rows = len(indices)
        active = np.ones(indices.shape, dtype=bool)
        columns = {  # only what the rules read: the values of other parameters are never needed here
            p.name: (self._level_arrays[j][indices[:, j]], active[:, j])
            for j, p in enumerate(self.parameters) if p.name in self._referenced
        }
        for j in self._when_order:
            active[:, j] = self._when[j].evaluate_columns(columns, rows)
        valid = np.ones(rows, dtype=bool)
        for expression in self._constraints:
            valid &= expression.evaluate_columns(columns, rows)
        return active, valid

    def _configuration_at(self, row: np.ndarray, active_row: np.ndarray) -> Configuration:
        values = {
            p.name: p.levels[int(row[j])] if active_row[j] else None for j, p in enumerate(self.parameters)
        }
        return Configuration(self, values)

    def enumerate(self, limit: int | None = WALK_LIMIT) -> Iterator[Configuration]:
        """Every valid configuration once, lazily, in mixed-radix order (``itertools.product`` order).

        Assignments that differ only in the level of an inactive parameter give
        the same configuration; only the one with level index 0 is yielded.
        The scan is linear in assignments: when constraints reject long runs of
        the product (e.g. a rule on the first, slowest-varying parameter of a
        huge space), the first configuration may take long to appear, so the
        walk raises SpaceError once it has scanned ``limit`` assignments of a
        larger space (None: no limit), or fewer when the space has many
        parameters (at most :data:`WALK_CELLS` level indices are examined).
        """
        import numpy as np

        if limit is not None:
            limit = min(limit, max(self.chunk_rows, WALK_CELLS // max(1, len(self.parameters))))
        scanned = 0
        for indices in self.level_index_chunks():
            if limit is not None and scanned >= limit:
                raise SpaceError(f"space {self.name!r} has {how_many(self.size)} assignments; walking it stopped "
                                 f"after {how_many(scanned)} of them: {WAY_OUT}")
            scanned += len(indices)
            active, valid = self._evaluate(indices)
            valid &= np.all(active | (indices == 0), axis=1)
            for row in np.flatnonzero(valid):
                yield self._configuration_at(indices[row], active[row])

    def count_valid(self, limit: int = WALK_LIMIT) -> int:
        """Number of distinct valid configurations, by scanning every assignment in chunks.

        Cost is linear in :attr:`size`: about a second per few million
        assignments; a space of more than ``limit`` assignments raises SpaceError.
        """
        if self.size > limit:
            raise SpaceError(f"space {self.name!r} has {how_many(self.size)} assignments, more than the "
                             f"{how_many(limit)} iotune counts one by one: {WAY_OUT}")
        return sum(int(self.valid_mask(indices, distinct=True).sum()) for indices in self.level_index_chunks())

    def full_factorial(self, limit: int = 1_000_000) -> list[Configuration]:
        """All valid configurations as a list; refuses spaces with more than ``limit`` assignments."""
        if self.size > limit:
            raise SpaceError(f"space {self.name!r} has {how_many(self.size)} assignments, more than the "
                             f"{how_many(limit)} a full factorial may list: {WAY_OUT}")
        return list(self.enumerate(None))

    def sample(self, n: int, seed: int = 0, *, max_draws: int = 10_000_000) -> list[Configuration]:
        """``n`` distinct valid configurations drawn uniformly at random, reproducibly for a ``seed``.

        Small spaces (at most 100,000 assignments) are enumerated and sampled
        without replacement; larger ones by rejection over random level
        indices, never materialising the product.  Returns all valid
        configurations when fewer than ``n`` exist (known for spaces that can
        be scanned within ``max_draws`` assignments); raises SpaceError when
        valid configurations are too rare to find in ``max_draws`` draws.
        """
        import numpy as np

        if n <= 0:
            return []
        rng = np.random.default_rng(seed)
        if self.size <= SMALL_SPACE:
            return self._choose(list(self.enumerate(None)), n, rng)
        found: dict[tuple[int, ...], Configuration] = {}
        drawn = 0
        budget = min(self.size, max_draws)
        while len(found) < n and drawn < budget:
            batch = min(self.chunk_rows, max(1024, 4 * n))
            indices = np.column_stack([rng.integers(0, radix, size=batch) for radix in self._radices])
            active, valid = self._evaluate(indices)
            valid &= np.all(active | (indices == 0), axis=1)
            for row in np.flatnonzero(valid):
                found.setdefault(tuple(indices[row].tolist()), self._configuration_at(indices[row], active[row]))
                if len(found) == n:
                    break
            drawn += batch
        if len(found) == n:
            return list(found.values())
        if self.size <= max_draws:
            return self._choose(list(self.enumerate(None)), n, rng)
        raise SpaceError(
            f"found only {len(found)} of {n} valid configurations in {drawn} random draws from "
            f"{self.size} assignments; valid ones are too rare to sample (loosen constraints or raise max_draws)"
        )

    @staticmethod
    def _choose(pool: list[Configuration], n: int, rng: np.random.Generator) -> list[Configuration]:
        if len(pool) <= n:
            return pool
        return [pool[i] for i in rng.choice(len(pool), size=n, replace=False)]


def how_many(count: int) -> str:
    """A count for a message: ``1,048,576`` or, beyond a trillion, ``about 10^30``."""
    return f"{count:,}" if count < 10**12 else f"about 10^{int(math.log10(count))}"


def _level_array(parameter: Parameter) -> np.ndarray:
    """Levels as a numpy array for the vectorised evaluator; booleans as 0/1 integers."""
    import numpy as np

    if parameter.type == "categorical":
        return np.array(parameter.levels, dtype=str)
    values = [int(level) for level in parameter.levels]
    try:
        return np.array(values, dtype=np.int64)
    except OverflowError:
        return np.array(values, dtype=object)
