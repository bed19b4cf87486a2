"""The layout driver interface, the layout's own checks and the file system a path lives on."""

from __future__ import annotations

import os
import re
from abc import ABC, abstractmethod
from pathlib import Path

from iotune.errors import IotuneError

LAYOUT_FIELDS = ("stripe_count", "stripe_unit", "object_size", "pool")
POOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


class LayoutError(IotuneError, ValueError):
    """A layout that cannot be set: a bad value, or a file system without such a setting."""


def check_layout(layout: dict) -> dict[str, str]:
    """The layout as strings, each field checked (positive integers; a pool name); LayoutError in one line."""
    checked = {}
    for name, value in layout.items():
        if name not in LAYOUT_FIELDS:
            raise LayoutError(f"unknown layout field {name!r}; allowed: {', '.join(LAYOUT_FIELDS)}")
        text = str(value)
        if name == "pool":
            if not POOL_NAME.fullmatch(text):
                raise LayoutError(f"layout pool must be a name of letters, digits, '_', '.', '-', got {text!r}")
        elif not text.isdigit() or int(text) < 1:
            raise LayoutError(f"layout {name} must be a positive integer (bytes or a count), got {text!r}")
        checked[name] = text
    return checked


def _unescape(field: str) -> str:
    return field.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


def file_system_of(path: Path) -> tuple[str, Path]:
    """(type, mountpoint) of the file system ``path`` lives on, from /proc/self/mountinfo (longest mount prefix)."""
    target = os.path.realpath(path)
    best = ("", Path("/"))
    best_length = -1
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        mountpoint = _unescape(fields[4])
        fs_type = fields[fields.index("-") + 1]
        inside = target == mountpoint or target.startswith(mountpoint.rstrip("/") + "/")
        if inside and len(mountpoint) >= best_length:  # the last of equal mounts is the one on top
            best, best_length = (fs_type, Path(mountpoint)), len(mountpoint)
    return best


class LayoutDriver(ABC):
    """Sets and reads file layouts on one kind of file system.

    ``fs_types`` are the mountinfo types it serves; ``fields`` the layout fields it
    knows.  ``set_file`` creates ``path`` empty (or takes it while still empty)
    with the layout; ``set_directory`` sets what files created in it inherit;
    ``read`` returns the layout in effect (all fields the file system reports).
    ``mpi_hints`` are ROMIO hints that ask for the same layout where ROMIO has a
    driver for this file system (none by default).
    """

    name = "base"
    fs_types: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()

    def check(self, layout: dict) -> dict[str, str]:
        """The checked layout, refusing a field this file system has not, in one line."""
        layout = check_layout(layout)
        extra = [name for name in layout if name not in self.fields]
        if extra:
            raise LayoutError(f"{self.name} has no layout field {', '.join(extra)}; it has {', '.join(self.fields)}")
        return layout

    @abstractmethod
    def set_file(self, path: Path, layout: dict) -> None:
        """See the class docstring."""

    @abstractmethod
    def set_directory(self, path: Path, layout: dict) -> None:
        """See the class docstring."""

    @abstractmethod
    def read(self, path: Path) -> dict[str, str]:
        """See the class docstring."""

    def mpi_hints(self, layout: dict) -> dict[str, str]:
        return {}
