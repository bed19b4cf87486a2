"""One typed parameter of a configuration space: its levels, role, layer and activation rule."""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from iotune.errors import SpaceError, UnitError
from iotune.units import format_size, parse_size

TYPES = ("categorical", "boolean", "integer", "size")
ROLES = ("workload", "system")
LAYERS = ("application", "hdf5", "mpiio", "filesystem", "device")
KEYS = (
    "name", "type", "levels", "range", "scale", "step", "default",
    "role", "layer", "when", "hint", "env", "description",
)
SCALES = ("log2", "linear")
MAX_RANGE_LEVELS = 100_000
MAX_INTEGER = 2**63 - 1
"""Largest integer level (magnitude): levels are stored and evaluated as 64-bit integers."""
MAX_SIZE = 2**50
"""Largest size level (1 PiB), as the spec's benchmark fields."""
SIZE_EXAMPLES = "examples: 4MiB, 256KiB, 1GB, 4096"
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
"""A well-formed environment variable name: no '=', '%', spaces or NUL (which the shell or exec would misread)."""
HINT_KEY = re.compile(r"[A-Za-z0-9_.\-]{1,255}\Z")
"""An MPI_Info key as ROMIO's hints file and MPICH_MPIIO_HINTS can carry it (no spaces, ':', '=' or ',')."""
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


class FieldError(SpaceError):
    """A parameter field is invalid; ``key`` and ``index`` locate it in the spec for the line number."""

    def __init__(self, message: str, key: str | None = None, index: int | None = None):
        super().__init__(message)
        self.key = key
        self.index = index


@dataclass(frozen=True, kw_only=True)
class Parameter:
    """A parameter with a finite, ordered tuple of levels.

    Level values are normalised: sizes are int bytes, booleans bool, integers
    int and categories str.  ``default`` is a level (the first one when not
    given).  ``role`` says whether the parameter describes the workload or is a
    system option iotune tunes; ``layer`` is where in the I/O stack it acts.
    ``when`` is an expression over other parameters; where it is False the
    parameter is inactive and its value is None.  ``hint`` is the MPI_Info key
    (defaults to the name for system options of the mpiio layer; a workload
    characteristic such as ``collective`` is not a hint), ``env`` an environment variable
    that carries the value.  ``line`` is the YAML line of the declaration and
    takes no part in equality.  ``scale="log2"`` marks an integer parameter whose
    effect scales with orders of magnitude (stripe counts, node counts): it is
    encoded as log2 of its value, as sizes are (levels must be >= 1); like ``line``
    it takes no part in equality.
    """

    name: str
    type: str
    levels: tuple = ()
    default: Any = None
    role: str
    layer: str
    when: str | None = None
    hint: str | None = None
    env: str | None = None
    description: str = ""
    # compare=False: the scale changes how models see the levels, not what is measured, so a study stored
    # before a spec declared it still resumes with that spec
    scale: str | None = field(default=None, compare=False)
    line: int | None = field(default=None, compare=False)
    _members: frozenset = field(init=False, repr=False, compare=False, default=frozenset())

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier() or keyword.iskeyword(self.name):
            raise FieldError(
                f"parameter name {self.name!r} must be an identifier (letters, digits, underscores)", "name"
            )
        self._require_choice("type", TYPES)
        self._require_choice("role", ROLES)
        self._require_choice("layer", LAYERS)
        raw_levels = self.levels
        if self.type == "boolean" and raw_levels in ((), None):
            raw_levels = (False, True)
        if isinstance(raw_levels, (str, bytes, Mapping)) or not hasattr(raw_levels, "__iter__"):
            raise FieldError(f"parameter {self.name!r}: levels must be a list, got {raw_levels!r}", "levels")
        raw_levels = tuple(raw_levels)
        if not raw_levels:
            raise FieldError(f"parameter {self.name!r}: levels must not be empty", "levels")
        levels, seen = [], set()  # a set: a range of 100,000 levels must not take quadratic time
        for index, raw in enumerate(raw_levels):
            value = self._convert(raw, f"level {raw!r}", "levels", index)
            if value in seen:
                raise FieldError(
                    f"parameter {self.name!r}: level {raw!r} is listed twice (levels must be distinct)",
                    "levels",
                    index,
                )
            seen.add(value)
            levels.append(value)
        object.__setattr__(self, "levels", tuple(levels))
        object.__setattr__(self, "_members", frozenset(levels))  # normalise: a tuple's `in` scans 100,000 levels
        if self.default is None:
            default = levels[0]
        else:
            default = self._convert(self.default, f"default {self.default!r}", "default")
            if default not in levels:
                raise FieldError(
                    f"parameter {self.name!r}: default {self.default!r} is not one of the levels "
                    f"({self._levels_text()})",
                    "default",
                )
        object.__setattr__(self, "default", default)
        self._check_scale()
        if self.hint is None and self.layer == "mpiio" and self.role == "system":
            object.__setattr__(self, "hint", self.name)
        for key in ("when", "hint", "env"):
            value = getattr(self, key)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise FieldError(f"parameter {self.name!r}: {key} must be a non-empty string, got {value!r}", key)
        if self.env is not None and not ENV_NAME.match(self.env):
            raise FieldError(f"parameter {self.name!r}: env {self.env!r} is not a variable name (letters, digits, "
                             "underscores, not starting with a digit; no '=', spaces or '%')", "env")
        if self.hint is not None and not HINT_KEY.match(self.hint):
            raise FieldError(f"parameter {self.name!r}: hint {self.hint!r} is not an MPI-IO hint key (letters, "
                             "digits, '_', '.', '-')", "hint")
        if not isinstance(self.description, str):
            raise FieldError(f"parameter {self.name!r}: description must be a string", "description")

    def _check_scale(self) -> None:
        if self.scale is None or (self.scale == "linear" and self.type == "integer"):
            object.__setattr__(self, "scale", None)  # linear: an integer's plain encoding
            return
        if self.scale not in SCALES:
            raise FieldError(f"parameter {self.name!r}: unknown scale {self.scale!r} (allowed: {', '.join(SCALES)})",
                             "scale")
        if self.type != "integer":
            raise FieldError(f"parameter {self.name!r}: scale is for integer parameters (a size is always encoded as "
                             f"log2), not {self.type!r}", "scale")
        low = min(self.levels)
        if low < 1:
            raise FieldError(f"parameter {self.name!r}: a log2 scale needs levels >= 1, got {low}", "scale")

    def _require_choice(self, key: str, allowed: tuple[str, ...]) -> None:
        value = getattr(self, key)
        if value not in allowed:
            raise FieldError(
                f"parameter {self.name!r}: unknown {key} {value!r} (allowed: {', '.join(allowed)})", key
            )

    def _convert(self, raw: Any, what: str, key: str, index: int | None = None) -> Any:
        """Turn a user-written level into its normalised value, or raise naming ``what``."""
        try:
            return _CONVERTERS[self.type](raw)
        except (ValueError, TypeError) as exc:
            raise FieldError(f"parameter {self.name!r}: {what} {exc}", key, index) from None

    def _levels_text(self) -> str:
        shown = ", ".join(self.format(level) for level in self.levels[:20])
        return f"levels: {shown}" + (f", ... ({len(self.levels)} levels)" if len(self.levels) > 20 else "")

    @property
    def kind(self) -> str:
        """``"text"`` for categorical parameters, ``"number"`` for the others (booleans count as 0/1)."""
        return "text" if self.type == "categorical" else "number"

    def normalise(self, value: Any) -> Any:
        """Return the level that ``value`` denotes: ``"4MiB"`` -> 4194304, ``"yes"`` -> True, ``"3"`` -> 3."""
        try:
            level = _CONVERTERS[self.type](value)
        except (ValueError, TypeError) as exc:
            raise SpaceError(
                f"parameter {self.name!r}: value {value!r} {exc}; {self._levels_text()}"
            ) from None
        if level in self._members:
            return level
        raise SpaceError(f"parameter {self.name!r}: value {value!r} is not a level ({self._levels_text()})")

    def format(self, value: Any) -> str:
        """Human form of a value of this parameter: sizes as ``256KiB``, None for inactive."""
        if value is None:
            return "None"
        if self.type == "size":
            return format_size(value)
        return str(value)

    def to_dict(self) -> dict[str, Any]:
        """Plain data that :meth:`from_dict` turns back into an equal parameter (levels listed, no range)."""

        def plain(value: Any) -> Any:
            return format_size(value) if self.type == "size" else value

        data: dict[str, Any] = {
            "name": self.name,
            "type": self.type,
            "levels": [plain(level) for level in self.levels],
            "default": plain(self.default),
            "role": self.role,
            "layer": self.layer,
        }
        for key in ("when", "hint", "env"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.description:
            data["description"] = self.description
        if self.scale is not None:
            data["scale"] = self.scale
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], line: int | None = None) -> Parameter:
        """Build a parameter from one spec entry; ``range``/``scale``/``step`` expand to levels; an integer's
        ``scale: log2`` (with a range or next to levels) is kept: it is encoded as log2."""
        label = f"parameter {data.get('name')!r}" if isinstance(data, Mapping) and "name" in data else "parameter"
        if not isinstance(data, Mapping):
            raise FieldError(f"{label} must be a mapping with keys {', '.join(KEYS)}, got {data!r}")
        unknown = [str(key) for key in data if key not in KEYS]
        if unknown:
            raise FieldError(f"{label}: unknown key {unknown[0]!r} (allowed: {', '.join(KEYS)})", unknown[0])
        for key in ("name", "type", "role", "layer"):
            if key not in data:
                raise FieldError(f"{label}: missing {key!r}")
        arguments = {key: data[key] for key in KEYS if key in data and key not in ("range", "scale", "step")}
        has_levels, has_range = "levels" in data, "range" in data
        if has_levels and has_range:
            raise FieldError(f"{label}: give either levels or range, not both", "range")
        if has_range:
            arguments["levels"] = _range_levels(label, data["type"], data["range"], data.get("scale"), data.get("step"))
        elif "step" in data or ("scale" in data and data["type"] != "integer"):
            raise FieldError(f"{label}: scale and step need a range", "scale" if "scale" in data else "step")
        elif not has_levels and data["type"] != "boolean":
            raise FieldError(f"{label}: needs levels (a list) or range ([low, high])")
        if data["type"] == "integer" and "scale" in data:
            arguments["scale"] = data["scale"]
        if arguments.get("description") is None:
            arguments.pop("description", None)
        return cls(**arguments, line=line)


def _to_size(raw: Any) -> int:
    if isinstance(raw, (int, float)) and not isinstance(raw, bool) and raw < 0:
        raise ValueError(f"is a negative size ({SIZE_EXAMPLES})")
    if isinstance(raw, str) and raw.strip().startswith("-"):
        raise ValueError(f"is a negative size ({SIZE_EXAMPLES})")
    try:
        size = parse_size(raw)
    except UnitError:
        raise ValueError(f"is not a size ({SIZE_EXAMPLES})") from None
    if size > MAX_SIZE:
        raise ValueError("is larger than 1 PiB, the largest size iotune accepts")
    return size


def _to_integer(raw: Any) -> int:
    value = _integer(raw)
    if abs(value) > MAX_INTEGER:
        raise ValueError("is beyond ±(2**63 - 1), the integers iotune stores and computes with")
    return value


def _integer(raw: Any) -> int:
    if isinstance(raw, bool):
        raise ValueError("is not an integer (examples: 1, 64, -3)")
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)
    if isinstance(raw, str):
        try:
            return int(raw.strip())
        except ValueError:
            pass
    raise ValueError("is not an integer (examples: 1, 64, -3)")


def _to_boolean(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, int) and raw in (0, 1):
        return bool(raw)
    if isinstance(raw, str):
        text = raw.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    raise ValueError("is not a boolean (allowed: true/false, yes/no, on/off)")


def _to_category(raw: Any) -> str:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, bool):  # YAML's true/false written as a category name
        return "true" if raw else "false"
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return str(raw)
    raise ValueError("is not a category name (a string)")


_CONVERTERS = {"size": _to_size, "integer": _to_integer, "boolean": _to_boolean, "categorical": _to_category}


def _range_levels(label: str, type_: str, bounds: Any, scale: Any, step: Any) -> list[int]:
    """Levels of ``range: [low, high]``: doublings from low (``scale: log2``, default for sizes)
    or arithmetic steps (``step: N``, default 1 for integers); both ends inclusive when reached."""
    if type_ not in ("integer", "size"):
        raise FieldError(f"{label}: range is only for integer and size parameters, not {type_!r}", "range")
    if not isinstance(bounds, (list, tuple)) or len(bounds) != 2:
        raise FieldError(f"{label}: range must be [low, high], got {bounds!r}", "range")
    convert = _to_size if type_ == "size" else _to_integer
    low_high = []
    for index, raw in enumerate(bounds):
        try:
            low_high.append(convert(raw))
        except ValueError as exc:
            raise FieldError(f"{label}: range bound {raw!r} {exc}", "range", index) from None
    low, high = low_high
    if low > high:
        raise FieldError(f"{label}: range low {bounds[0]!r} is above high {bounds[1]!r}", "range")
    if scale is not None and step is not None:
        raise FieldError(f"{label}: give scale or step, not both", "step")
    if scale is not None and scale not in SCALES:
        raise FieldError(f"{label}: unknown scale {scale!r} (allowed: {', '.join(SCALES)})", "scale")
    if scale == "log2" or (scale is None and step is None and type_ == "size"):
        if low <= 0:
            raise FieldError(f"{label}: a log2 range needs a positive low bound, got {bounds[0]!r}", "range")
        count = (high // low).bit_length()
        levels = [low * 2**k for k in range(count)] if count <= MAX_RANGE_LEVELS else []
    else:
        try:
            stride = convert(1 if step is None else step)
        except ValueError as exc:
            raise FieldError(f"{label}: step {step!r} {exc}", "step") from None
        if stride <= 0:
            raise FieldError(f"{label}: step must be positive, got {step!r}", "step")
        count = (high - low) // stride + 1
        levels = list(range(low, high + 1, stride)) if count <= MAX_RANGE_LEVELS else []
    if count > MAX_RANGE_LEVELS:
        raise FieldError(f"{label}: range gives {count} levels, more than {MAX_RANGE_LEVELS}", "range")
    return levels
