"""Hints and variables the user already set, read from the environment a command would run in.

ROMIO reads a hints file named by ``ROMIO_HINTS`` (``key value`` lines), Cray
MPICH reads ``MPICH_MPIIO_HINTS`` (``pattern:key=value:...``, groups separated
by commas) and IOR reads ``IOR_HINT__MPI__key=value`` variables.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from iotune.errors import IotuneError

IOR_PREFIX = "IOR_HINT__MPI__"


class ApplyError(IotuneError, ValueError):
    """A configuration cannot be applied (unreadable user hints, lfs failure)."""


def read_romio_hints(path: str | Path) -> dict[str, str]:
    """``key value`` lines of a ROMIO hints file (blank lines and ``#`` comments skipped)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ApplyError(f"ROMIO_HINTS={path}: cannot read the hints file ({exc})") from None
    hints = {}
    for line in text.splitlines():
        parts = line.split(None, 1)
        if parts and not parts[0].startswith("#"):
            hints[parts[0]] = parts[1].strip() if len(parts) > 1 else ""
    return hints


def parse_mpich_hints(value: str) -> list[tuple[str, dict[str, str]]]:
    """``MPICH_MPIIO_HINTS`` as (file pattern, hints) groups, in order."""
    groups = []
    for group in filter(None, (g.strip() for g in value.split(","))):
        pattern, *pairs = group.split(":")
        hints = {}
        for pair in pairs:
            key, _, item = pair.partition("=")
            if key:
                hints[key.strip()] = item.strip()
        groups.append((pattern, hints))
    return groups


def format_mpich_hints(groups: list[tuple[str, dict[str, str]]]) -> str:
    """Inverse of :func:`parse_mpich_hints`; groups without hints are dropped."""
    return ",".join(":".join([pattern, *(f"{k}={v}" for k, v in hints.items())]) for pattern, hints in groups if hints)


def user_hints(environ: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """Every hint the user set: key -> (value, where it was set), later sources winning as MPICH reads them."""
    found: dict[str, tuple[str, str]] = {}
    if environ.get("ROMIO_HINTS"):
        path = environ["ROMIO_HINTS"]
        for key, value in read_romio_hints(path).items():
            found[key] = (value, f"ROMIO_HINTS file {path}")
    for _pattern, hints in parse_mpich_hints(environ.get("MPICH_MPIIO_HINTS", "")):
        for key, value in hints.items():
            found[key] = (value, "MPICH_MPIIO_HINTS")
    for name, value in environ.items():
        if name.startswith(IOR_PREFIX):
            found[name[len(IOR_PREFIX):]] = (value, name)
    return found
