"""Which driver serves a path, and applying a layout to a file or a directory with it.

Every module of :mod:`iotune.fslayout` that defines ``DRIVER`` (a :class:`LayoutDriver`) is a driver; nothing
else lists them.  Adding a file system (BeeGFS, GPFS) is its module here and its test.
"""

from __future__ import annotations

import os
from pathlib import Path

from iotune.declared import declared
from iotune.fslayout.base import LayoutDriver, LayoutError, file_system_of


def _discover() -> tuple[LayoutDriver, ...]:
    found = declared("iotune.fslayout", "DRIVER", LayoutDriver, skip=("base", "drivers"))
    return tuple(sorted(found, key=lambda driver: driver.name))


DRIVERS: tuple[LayoutDriver, ...] = _discover()
"""One driver per file system with layouts, by name."""

KNOWN = ", ".join(driver.name for driver in DRIVERS)
"""The file systems iotune sets layouts on, for help and messages."""


def driver_for(path: Path) -> LayoutDriver:
    """The driver of the file system ``path`` lives on; LayoutError in one line where it has no layouts."""
    fs_type, mountpoint = file_system_of(Path(path))
    for driver in DRIVERS:
        if fs_type in driver.fs_types:
            return driver
    raise LayoutError(f"{path} is on {fs_type or 'an unknown file system'} (mounted at {mountpoint}), which has no "
                      f"file layouts (stripe_count, stripe_unit, ...); iotune sets them on {KNOWN}")


def apply_to_file(path: Path, layout: dict) -> dict[str, str]:
    """Create ``path`` empty with ``layout``; returns the layout in effect, read back from the file system."""
    driver = driver_for(Path(path).parent)
    driver.set_file(Path(path), layout)
    return driver.read(Path(path))


def apply_to_directory(path: Path, layout: dict) -> dict[str, str]:
    """Set ``layout`` on directory ``path`` (files created in it afterwards inherit it); the layout in effect."""
    driver = driver_for(Path(path))
    driver.set_directory(Path(path), layout)
    return driver.read(Path(path))


def default_layout(directory: Path) -> dict[str, str]:
    """The layout a file created in ``directory`` with none asked for gets (what an application writing there runs
    with today: CephFS's root or directory layout, Lustre's default striping), read from an empty probe file that
    is removed again; LayoutError in one line where the file system has no layouts."""
    driver = driver_for(Path(directory))
    probe = Path(directory) / f".iotune-layout-probe-{os.getpid()}"
    try:
        with open(probe, "xb"):
            pass
        return driver.read(probe)
    except OSError as error:
        raise LayoutError(f"cannot read the default layout in {directory}: {error.strerror}") from None
    finally:
        probe.unlink(missing_ok=True)
