"""One point of a configuration space: an immutable mapping parameter name -> value."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from typing import Any


def digest(data: Any) -> str:
    """First 16 hex digits of the sha1 of ``data``'s canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


class Configuration(Mapping):
    """Values for every parameter of a space, in the space's order.

    Values are normalised levels (sizes in bytes) or None for a parameter that
    is inactive under its ``when:`` rule.  Built by :meth:`Space.configuration`
    and :meth:`Space.enumerate`, which validate; the constructor trusts its input.
    Equal to any mapping with the same items, and hashable.
    """

    __slots__ = ("_space", "_values", "_key")

    # iotune.space.space imports this module: no import back, not even for type checking (tests/test_layers.py
    # counts that as a cycle), so the name Space is unknown to ruff and mypy here
    def __init__(self, space: Space, values: Mapping[str, Any]):  # type: ignore[name-defined]  # noqa: F821
        self._space = space
        self._values = dict(values)
        self._key: str | None = None

    @property
    def space(self) -> Space:  # type: ignore[name-defined]  # noqa: F821
        """The space this configuration belongs to."""
        return self._space

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self._values == dict(other.items())
        return NotImplemented

    def __hash__(self) -> int:
        return hash(frozenset(self._values.items()))

    def __repr__(self) -> str:
        return f"Configuration({self.describe()!r})"

    @property
    def key(self) -> str:
        """Stable identity across processes and runs: sha1 of the canonical JSON, 16 hex digits."""
        if self._key is None:
            self._key = digest(self._values)
        return self._key

    def _part(self, role: str) -> dict[str, Any]:
        return {p.name: self._values[p.name] for p in self._space.parameters if p.role == role}

    def workload(self) -> dict[str, Any]:
        """Values of the parameters that describe the application (role ``workload``)."""
        return self._part("workload")

    def system(self) -> dict[str, Any]:
        """Values of the tunable system options (role ``system``)."""
        return self._part("system")

    @property
    def workload_key(self) -> str:
        """Key of the workload part, shared by every configuration that runs the same workload."""
        return digest(self.workload())

    def to_dict(self) -> dict[str, Any]:
        """A plain dict copy, JSON-ready (sizes in bytes, inactive parameters None)."""
        return dict(self._values)

    def describe(self) -> str:
        """One line such as ``api=MPIIO transfer_size=256KiB romio_cb_write=disable``; inactive parameters omitted."""
        return " ".join(
            f"{p.name}={p.format(self._values[p.name])}"
            for p in self._space.parameters
            if self._values[p.name] is not None
        )
