"""Strict sections of a spec: each declares its keys and their types, once; unknown keys are errors.

A :class:`Section` reads one mapping of a YAML file: every key must be
declared (an unknown one is refused with its line and the closest known key),
every value is converted by its field's converter, and a converter's complaint
becomes one line naming the file, the line and the key.  Converters raise
``ValueError`` with a message that completes "key: value ...".
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from iotune.errors import SpaceError, UnitError
from iotune.units import parse_size
from iotune.yamlio import where

Converter = Callable[[Any], Any]
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def did_you_mean(name: Any, known) -> str:
    """``", did you mean 'x'?"`` for the closest of ``known``, or ``""``."""
    close = difflib.get_close_matches(str(name), [str(k) for k in known], n=1, cutoff=0.6)
    return f", did you mean {close[0]!r}?" if close else ""


@dataclass(frozen=True)
class Field:
    """One key of a section: its converter, its default (``required`` when it has none) and what it means."""

    name: str
    convert: Converter
    default: Any = None
    required: bool = False
    doc: str = ""


class Section:
    """A mapping with declared keys, e.g. ``benchmark:`` or ``campaign:`` of a campaign spec."""

    def __init__(self, name: str, fields: list[Field]):
        self.name = name
        self.fields = {f.name: f for f in fields}

    def read(self, data: Any, source: str, lines: Mapping[tuple, int], path: tuple) -> dict[str, Any]:
        """The section's values, converted, with defaults for the keys not given."""
        label = " > ".join(str(p) for p in path) or self.name
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise SpaceError(f"{where(source, lines, path)}: '{label}' must be a mapping of "
                             f"{', '.join(self.fields)}, got {type(data).__name__}")
        for key in data:
            if key not in self.fields:
                raise SpaceError(f"{where(source, lines, path + (key,))}: unknown key {key!r} in '{label}'"
                                 f"{did_you_mean(key, self.fields)} (keys: {', '.join(self.fields)})")
        values = {}
        for name, field in self.fields.items():
            if name not in data or data[name] is None:
                if field.required:
                    raise SpaceError(f"{where(source, lines, path)}: '{label}' needs '{name}' ({field.doc})")
                values[name] = field.default
                continue
            try:
                values[name] = field.convert(data[name])
            except (ValueError, TypeError) as exc:
                raise SpaceError(f"{where(source, lines, path + (name,))}: {label} > {name}: {data[name]!r} {exc}") \
                    from None
        return values


def integer(minimum: int | None = None, maximum: int | None = None) -> Converter:
    def convert(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                (isinstance(value, float) and not value.is_integer()):
            raise ValueError("is not a whole number")
        value = int(value)
        if minimum is not None and value < minimum:
            raise ValueError(f"must be >= {minimum}")
        if maximum is not None and value > maximum:
            raise ValueError(f"must be <= {maximum}")
        return value
    return convert


def number(low: float | None = None, high: float | None = None, *, open_low: bool = False,
           open_high: bool = False) -> Converter:
    def convert(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError("is not a finite number")
        if low is not None and (value < low or (open_low and value == low)):
            raise ValueError(f"must be {'>' if open_low else '>='} {low}")
        if high is not None and (value > high or (open_high and value == high)):
            raise ValueError(f"must be {'<' if open_high else '<='} {high}")
        return float(value)
    return convert


def size(value: Any) -> int:
    """A size in bytes, ``4MiB`` or a whole number."""
    try:
        nbytes = parse_size(value)
    except UnitError as exc:
        raise ValueError(f"is not a size ({exc})") from None
    if nbytes > 2**50:
        raise ValueError("is larger than 1 PiB")
    return nbytes


def boolean(value: Any) -> bool:
    """YAML's true/false, or the words yes/no, on/off, 1/0 (a boolean field reads them by its type)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
        return value.strip().lower() in _TRUE
    raise ValueError("is not a boolean (true/false, yes/no, on/off)")


def choice(*options: Any) -> Converter:
    def convert(value: Any) -> Any:
        if value not in options:
            raise ValueError(f"is not one of {', '.join(map(str, options))}{did_you_mean(value, options)}")
        return value
    return convert


def text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("is not a string")
    return value


def string_map(value: Any) -> dict[str, str]:
    """A mapping of names to scalar values, kept as strings (MPI-IO hints, environment variables)."""
    if not isinstance(value, Mapping):
        raise ValueError("is not a mapping of names to values")
    out = {}
    for key, item in value.items():
        if not isinstance(key, str) or isinstance(item, (Mapping, list)) or item is None:
            raise ValueError(f"has {key!r}: {item!r}; give names and scalar values")
        out[key] = ("true" if item else "false") if isinstance(item, bool) else str(item)
    return out


def env_map(value: Any) -> dict[str, str]:
    """Environment variables: well-formed names, values without NUL (:mod:`iotune.spec.environment`)."""
    from iotune.spec.environment import check_name, check_value

    out = string_map(value)
    for key, item in out.items():
        try:
            check_name(key)
            check_value(key, item)
        except SpaceError as exc:
            raise ValueError(f"is refused: {exc}") from None
    return out


def hint_map(value: Any) -> dict[str, str]:
    """MPI-IO hints: keys as MPI_Info keys, one-line values."""
    from iotune.space.parameter import HINT_KEY

    out = string_map(value)
    for key, item in out.items():
        if not HINT_KEY.match(key):
            raise ValueError(f"has hint key {key!r}, which is not an MPI-IO hint key (letters, digits, '_', '.', '-')")
        if any(c in item for c in "\x00\n\r") or len(item) > 1024:
            raise ValueError(f"has hint {key} with a value holding a line break or NUL, or over 1024 characters")
    return out


def layout_map(value: Any) -> dict[str, str]:
    """A file layout: stripe_count, stripe_unit, object_size, pool (:mod:`iotune.fslayout`)."""
    from iotune.fslayout import LayoutError, check_layout

    try:
        return check_layout(string_map(value))
    except LayoutError as exc:
        raise ValueError(f"is refused: {exc}") from None


def hdf5_map(value: Any) -> dict[str, str]:
    """HDF5 settings of ``api: HDF5`` (:mod:`iotune.spec.hdf5`)."""
    from iotune.spec.hdf5 import Hdf5SettingError, check_hdf5

    if not isinstance(value, Mapping):
        raise ValueError("is not a mapping")
    try:
        return check_hdf5(value)
    except Hdf5SettingError as exc:
        raise ValueError(f"is refused: {exc}") from None


def mapping(value: Any) -> dict:
    if not isinstance(value, Mapping):
        raise ValueError("is not a mapping")
    return dict(value)
