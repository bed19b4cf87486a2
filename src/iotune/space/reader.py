"""Building a space from spec data: the top-level keys of a space and its parameters, checked strictly.

The YAML itself is read by :mod:`iotune.yamlio`, which keeps the line of every
element by path (``("parameters", 3, "levels", 1)`` -> 22), so that errors
found here or later (a bad level, a bad expression) name the exact line.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from iotune.errors import SpaceError
from iotune.space.parameter import FieldError, Parameter
from iotune.yamlio import where

TOP_KEYS = ("name", "description", "parameters", "constraints")
MAX_LEVELS = 1_000_000
"""Most levels of all parameters together (each range may give 100,000)."""
MAX_NAME = 200
"""Longest space name: it names a study, a file prefix and every message."""

Path = tuple
Lines = Mapping[Path, int]


def space_arguments(data: Any, source: str, lines: Lines) -> dict[str, Any]:
    """Check the top level of a spec and build its parameters; returns keyword arguments for ``Space``."""
    if data is None:
        raise SpaceError(f"{source}:1: the spec is empty; it must be a mapping with keys {', '.join(TOP_KEYS)}")
    if not isinstance(data, Mapping):
        raise SpaceError(
            f"{where(source, lines, ())}: the spec must be a mapping with keys {', '.join(TOP_KEYS)}, "
            f"got {type(data).__name__}"
        )
    for key in data:
        if key not in TOP_KEYS:
            close = difflib.get_close_matches(str(key), TOP_KEYS, n=1, cutoff=0.6)
            hint = f", did you mean {close[0]!r}?" if close else ""
            raise SpaceError(f"{where(source, lines, (key,))}: unknown key {key!r}{hint} "
                             f"(space keys: {', '.join(TOP_KEYS)})")
    if "parameters" not in data:
        raise SpaceError(f"{where(source, lines, ())}: missing 'parameters' (a list of parameter mappings)")
    entries = data["parameters"]
    if not isinstance(entries, list) or not entries:
        raise SpaceError(
            f"{where(source, lines, ('parameters',))}: 'parameters' must be a non-empty list, got {entries!r}"
        )
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SpaceError(f"{where(source, lines, ('name',))}: the spec needs a 'name' (a string), got {name!r}")
    if len(name) > MAX_NAME or not name.isprintable():
        raise SpaceError(f"{where(source, lines, ('name',))}: the spec's name must be one line of at most {MAX_NAME} "
                         f"printable characters, got {name[:40]!r}{'...' if len(name) > 40 else ''}")
    description = data.get("description") or ""
    if not isinstance(description, str):
        raise SpaceError(f"{where(source, lines, ('description',))}: 'description' must be a string")
    constraints = data.get("constraints") or []
    if not isinstance(constraints, list):
        raise SpaceError(
            f"{where(source, lines, ('constraints',))}: 'constraints' must be a list of expressions, "
            f"got {constraints!r}"
        )
    parameters, levels = [], 0
    for index, entry in enumerate(entries):
        path = ("parameters", index)
        try:
            parameters.append(Parameter.from_dict(entry, line=lines.get(path)))
        except FieldError as exc:
            detail = path + tuple(part for part in (exc.key, exc.index) if part is not None)
            raise SpaceError(f"{where(source, lines, detail)}: {exc}") from None
        levels += len(parameters[-1].levels)
        if levels > MAX_LEVELS:  # ranges expand: a few lines must not become gigabytes of levels
            raise SpaceError(f"{where(source, lines, path)}: the parameters have more than {MAX_LEVELS:,} levels "
                             "in all; give fewer or coarser ranges")
    return {
        "name": name,
        "description": description,
        "parameters": parameters,
        "constraints": constraints,
        "source": source,
        "lines": lines,
    }
