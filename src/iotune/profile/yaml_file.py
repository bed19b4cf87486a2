"""A :class:`Workload` from a YAML file of its fields (sizes as ``4MiB`` or bytes)."""

from __future__ import annotations

from pathlib import Path

import yaml

from iotune.errors import UnitError
from iotune.profile.workload import ProfileError, Workload
from iotune.units import parse_size

SIZES = ("bytes_per_process", "request_size", "bytes_read", "bytes_written")
DEFAULTS_NOTE = "io_processes not given: all processes do I/O"


def from_mapping(data: dict, source: str = "<mapping>") -> Workload:
    """A Workload from a mapping of its fields; ``io_processes`` defaults to ``processes``, sizes may carry units."""
    if not isinstance(data, dict):
        raise ProfileError(f"{source}: a workload file is a mapping of workload fields to values")
    values = dict(data)
    for name in SIZES:
        if isinstance(values.get(name), str):
            try:
                values[name] = parse_size(values[name])
            except (UnitError, ValueError):
                raise ProfileError(f"{source}: {name}: {values[name]!r} is not a size (examples: 4MiB, 1048576)") \
                    from None
    notes = list(values.pop("notes", []) or [])
    if "io_processes" not in values and isinstance(values.get("processes"), int):
        values["io_processes"] = values["processes"]
        notes.append(DEFAULTS_NOTE)
    missing = [name for name in ("processes", "api", "bytes_per_process", "request_size") if name not in values]
    if missing:
        raise ProfileError(f"{source}: missing workload field(s) {', '.join(missing)}")
    values.setdefault("source", source)
    return Workload.from_dict({**values, "notes": notes}, source)


def from_yaml(path: str | Path) -> Workload:
    """The workload a YAML file describes; ProfileError when it cannot be read or is not a valid workload."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read the workload file ({exc.strerror})") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ProfileError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    return from_mapping(data, str(path))
