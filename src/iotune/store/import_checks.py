"""Every field of an imported export, checked before it reaches the database.

An export comes from someone else: a negative or NaN time, a phase of no
bytes in no time, a configuration that is not one of the study's space, a
configuration key that names another configuration, would all end up in the
statistics and win (``best measured: mean I/O time -4.997 s``).  Each check
here returns the value to store, normalised, or raises :class:`BadRecord` with
what is wrong; :mod:`iotune.store.exchange` adds which record it is and rolls
the whole import back.

What a field must be:

- names and keys: non-empty strings of bounded length without control characters;
- times (``seconds``, sub-phases, ``wall_seconds``): finite numbers, ``seconds`` > 0, the others >= 0;
- counts (``bytes``, ``ops``, ``verify_errors``, ``repeat``): whole numbers >= 0 (not booleans);
- phases: each at most once in a trial;
- ``state``: COMPLETE, FAILED or INVALID (PENDING and RUNNING trials hold no result and are skipped);
  a COMPLETE trial has at least one phase;
- ``config``: a configuration of the study's space in its normal form, whose ``config_key`` and
  ``workload_key`` are its own (when the space is known; else plain scalar values);
- ``space_hash``: the hash of ``space_yaml`` when the export carries the space;
- every JSON document (settings, hints, extra, benchmark): at most :data:`MAX_JSON` characters.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal, overload

from iotune.errors import SpaceError
from iotune.records import BenchmarkSpec, PhaseResult
from iotune.space import Space
from iotune.space.configuration import digest
from iotune.spec.environment import check_name, check_value
from iotune.spec.mapping import check_hint_value, hint_key, hint_value
from iotune.store.records import parse_space

PHASES = ("write", "read", "run")
IMPORTED_STATES = ("COMPLETE", "FAILED", "INVALID")
UNFINISHED_STATES = ("PENDING", "RUNNING")
MAX_NAME = 200
MAX_KEY = 64
MAX_TEXT = 1 << 20
MAX_JSON = 1 << 20
MAX_COUNT = 1 << 62
MAX_SECONDS = 1e9
MAX_REPEAT = 1_000_000


_CONTROL = re.compile("[\x00-\x1f\x7f]")


class BadRecord(ValueError):
    """One field of an imported record is not acceptable; the message says which and why."""


@overload
def text(value: Any, what: str, *, limit: int = ..., optional: Literal[False], line: bool = ...) -> str: ...
@overload
def text(value: Any, what: str, *, limit: int = ..., optional: bool = ..., line: bool = ...) -> str | None: ...
def text(value: Any, what: str, *, limit: int = MAX_TEXT, optional: bool = True, line: bool = False) -> str | None:
    """A string of at most ``limit`` characters without NUL (``line``: nor any control character), or None."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise BadRecord(f"{what} must be text, got {_show(value)}")
    if len(value) > limit:
        raise BadRecord(f"{what} is {len(value)} characters long, more than {limit}")
    if "\x00" in value or (line and _CONTROL.search(value)):
        raise BadRecord(f"{what} {_show(value)} holds control characters")
    return value


def name(value: Any, what: str, limit: int = MAX_NAME) -> str:
    """A non-empty one-line string."""
    value = text(value, what, limit=limit, optional=False, line=True)
    if not value.strip():
        raise BadRecord(f"{what} must not be empty")
    return value


def timestamp(value: Any, what: str) -> str | None:
    """An ISO 8601 time (as iotune writes them), or None."""
    value = text(value, what, limit=40, line=True)
    if value is not None:
        try:
            datetime.fromisoformat(value)
        except ValueError:
            raise BadRecord(f"{what} {_show(value)} is not an ISO 8601 time") from None
    return value


@overload
def count(value: Any, what: str, *, optional: Literal[False] = ..., maximum: int = ...) -> int: ...
@overload
def count(value: Any, what: str, *, optional: bool, maximum: int = ...) -> int | None: ...
def count(value: Any, what: str, *, optional: bool = False, maximum: int = MAX_COUNT) -> int | None:
    """A whole number in 0 .. ``maximum`` (a float with no fraction is accepted, as CSV and Parquet give them)."""
    if value is None and optional:
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRecord(f"{what} must be a whole number, got {_show(value)}")
    if not 0 <= value <= maximum:
        raise BadRecord(f"{what} must be between 0 and {maximum}, got {value}")
    return value


@overload
def seconds(value: Any, what: str, *, positive: bool = ..., optional: Literal[False] = ...) -> float: ...
@overload
def seconds(value: Any, what: str, *, positive: bool = ..., optional: bool) -> float | None: ...
def seconds(value: Any, what: str, *, positive: bool = False, optional: bool = False) -> float | None:
    """A finite time in seconds, >= 0 (> 0 when ``positive``), at most :data:`MAX_SECONDS`."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadRecord(f"{what} must be a number of seconds, got {_show(value)}")
    value = float(value)
    if not math.isfinite(value) or value < 0 or (positive and value == 0) or value > MAX_SECONDS:
        bound = "> 0" if positive else ">= 0"
        raise BadRecord(f"{what} must be a finite number of seconds {bound} and at most {MAX_SECONDS:g}, "
                        f"got {value!r}")
    return value


def document(value: Any, what: str, *, optional: bool = True) -> Any:
    """A JSON value (mapping expected) of bounded size."""
    if value is None and optional:
        return None
    if not isinstance(value, Mapping):
        raise BadRecord(f"{what} must be an object, got {_show(value)}")
    try:
        size = len(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise BadRecord(f"{what} is not plain JSON ({exc})") from None
    if size > MAX_JSON:
        raise BadRecord(f"{what} is {size} characters of JSON, more than {MAX_JSON}")
    return dict(value)


def hints(value: Any, what: str, runnable: bool = False) -> dict[str, str]:
    """MPI-IO hints: text keys, text values (numbers are kept as text, as MPI_Info holds them), at most
    :data:`MAX_JSON` characters of JSON; ``runnable`` (hints a run would set): each value one a spec takes
    (:func:`iotune.spec.mapping.check_hint_value`)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise BadRecord(f"{what} must be an object, got {_show(value)}")
    out = dict(_hint(key, item, what) if _plain(item) else _hint.__wrapped__(key, item, what)
               for key, item in value.items())
    if sum(len(k) + len(v) + 6 for k, v in out.items()) > MAX_JSON // 2:  # near the bound: measure it
        size = len(json.dumps(out))
        if size > MAX_JSON:
            raise BadRecord(f"{what} is {size} characters of JSON, more than {MAX_JSON}")
    if runnable:
        for key, item in out.items():
            _runnable_hint(key, item, what)
    return out


def _plain(item: Any) -> bool:
    return isinstance(item, (str, int, float)) and not isinstance(item, bool)


@functools.lru_cache(maxsize=4096, typed=True)  # a study's hints take few values: each is checked once
def _hint(key: Any, item: Any, what: str) -> tuple[str, str]:
    key = name(key, f"{what} key", limit=255)
    if not _plain(item) or (isinstance(item, float) and not math.isfinite(item)):
        raise BadRecord(f"{what} {key} must be text, got {_show(item)}")
    return key, text(str(item), f"{what} {key}", limit=1024, optional=False, line=True)


@functools.lru_cache(maxsize=4096)
def _runnable_hint(key: str, value: str, what: str) -> None:
    try:
        check_hint_value(key, value)
    except SpaceError as exc:
        raise BadRecord(f"{what}: {exc}") from None


def benchmark(value: Any, what: str) -> dict | None:
    """A stored benchmark run: the fields of a BenchmarkSpec that it can run, its variables well formed."""
    value = document(value, what)
    if value is None:
        return None
    try:
        spec = BenchmarkSpec.from_dict(value)
        problem = spec.problem()
        if problem:
            raise BadRecord(f"{what}: {problem}")
        for key, item in dict(spec.env).items():
            check_name(key)
            check_value(key, item)
        hints(spec.hints, f"{what} hints", runnable=True)
        for field in ("processes", "block_size", "transfer_size", "segment_count"):
            count(getattr(spec, field), f"{what} {field}")
    except (TypeError, SpaceError) as exc:
        raise BadRecord(f"{what}: {str(exc).splitlines()[0]}") from None
    return value


def phase(data: Any, what: str) -> PhaseResult:
    """One measured phase: known name, bytes and times that make sense."""
    if not isinstance(data, Mapping):
        raise BadRecord(f"{what} must be an object, got {_show(data)}")
    kind = data.get("phase")
    if kind not in PHASES:
        raise BadRecord(f"{what}: phase must be one of {', '.join(PHASES)}, got {_show(kind)}")
    total = seconds(data.get("seconds"), f"{what} ({kind}) seconds", positive=True)
    parts = {key: seconds(data.get(key), f"{what} ({kind}) {key}", optional=True)
             for key in ("open_seconds", "transfer_seconds", "close_seconds")}
    bandwidth = data.get("bandwidth_mib")
    if bandwidth is not None and (isinstance(bandwidth, bool) or not isinstance(bandwidth, (int, float))
                                  or not math.isfinite(bandwidth) or bandwidth < 0):
        raise BadRecord(f"{what} ({kind}): bandwidth_mib must be a finite number >= 0, got {_show(bandwidth)}")
    return PhaseResult(
        phase=kind,
        bytes=count(data.get("bytes"), f"{what} ({kind}) bytes"),
        seconds=total,
        ops=count(data.get("ops"), f"{what} ({kind}) ops", optional=True),
        verify_errors=count(data.get("verify_errors"), f"{what} ({kind}) verify_errors", optional=True),
        **parts,
    )


def phases(items: list, what: str) -> list[PhaseResult]:
    """The measured phases of one trial (:func:`phase` each), each phase at most once (not rows repeated)."""
    found = [phase(item, f"{what} #{number}") for number, item in enumerate(items, start=1)]
    names = [p.phase for p in found]
    repeated = next((name for name in names if names.count(name) > 1), None)
    if repeated is not None:
        raise BadRecord(f"phase {repeated} appears {names.count(repeated)} times in one trial; a trial records each "
                        "phase once (rows repeated?)")
    return found


def configuration(config: Any, config_key: Any, workload_key: Any, space: Space | None) -> tuple[dict, str, str]:
    """The configuration to store with its key and workload key.

    With the study's ``space``: every parameter present (an absent one must be
    inactive), values normalised, and the given keys must be the
    configuration's own.  Without it (an export without its space): plain
    scalar values under parameter names, keys as given.
    """
    if not isinstance(config, Mapping) or not config:
        raise BadRecord(f"config must be a non-empty object of parameter values, got {_show(config)}")
    key = name(config_key, "config_key", limit=MAX_KEY)
    workload = text(workload_key, "workload_key", limit=MAX_KEY, line=True) or ""
    for parameter, value in config.items():
        if not isinstance(parameter, str) or not parameter.isidentifier():
            raise BadRecord(f"config names {_show(parameter)}, which is not a parameter name")
        if isinstance(value, float) and not math.isfinite(value):
            raise BadRecord(f"config {parameter} is {value!r}")
        if value is not None and not isinstance(value, (str, int, float, bool)):
            raise BadRecord(f"config {parameter} must be a scalar value, got {_show(value)}")
        if isinstance(value, str):
            text(value, f"config {parameter}", limit=1024)
    if space is None:
        return dict(config), key, workload
    try:
        made = space.configuration(config)
    except SpaceError as exc:
        raise BadRecord(f"config is not a configuration of the study's space: {exc}") from None
    missing = [p.name for p in space.parameters if p.name not in config and made[p.name] is not None]
    if missing:
        raise BadRecord(f"config lacks parameter(s) {', '.join(missing)} of the study's space")
    if made.key != key:
        raise BadRecord(f"config_key {key} is not the key of its configuration ({made.key}): the configuration or "
                        "its key was changed")
    own = _workload_key(tuple(made.workload().items()))
    if workload and own != workload:
        raise BadRecord(f"workload_key {workload} is not the key of its configuration's workload ({own})")
    return made.to_dict(), made.key, own


@functools.lru_cache(maxsize=4096)  # a study has few workloads and many configurations of each
def _workload_key(items: tuple) -> str:
    return digest(dict(items))


def study_space(study: Mapping, where: str) -> Space | None:
    """The space an exported study carries, checked against its ``space_hash``; None when it carries none."""
    space_yaml = text(study.get("space_yaml"), "space_yaml", limit=4 << 20) or ""
    space_hash = name(study.get("space_hash"), "space_hash", limit=128)
    if not space_yaml.strip():
        return None
    try:
        space = parse_space(space_yaml, source="space_yaml")
    except SpaceError as exc:
        raise BadRecord(str(exc).splitlines()[0]) from None
    for parameter in space.parameters:  # the study's hints: each level one that a spec takes, so that it can run
        if key := hint_key(parameter):
            for level in parameter.levels:
                _runnable_hint(key, hint_value(level), "space_yaml")
    if space.hash != space_hash:
        raise BadRecord(f"space_hash {space_hash} is not the hash of its space_yaml ({space.hash}): the export was "
                        "edited or damaged")
    return space


def _show(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."
