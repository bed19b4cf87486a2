"""Which driver serves a path, and applying a layout to a file or a directory with it."""

from __future__ import annotations

from pathlib import Path

from iotune.fslayout.base import LayoutDriver, LayoutError, file_system_of
from iotune.fslayout.cephfs import CephFSDriver
from iotune.fslayout.lustre import LustreDriver

DRIVERS: tuple[LayoutDriver, ...] = (CephFSDriver(), LustreDriver())


def driver_for(path: Path) -> LayoutDriver:
    """The driver of the file system ``path`` lives on; LayoutError in one line where it has no layouts."""
    fs_type, mountpoint = file_system_of(Path(path))
    for driver in DRIVERS:
        if fs_type in driver.fs_types:
            return driver
    known = ", ".join(d.name for d in DRIVERS)
    raise LayoutError(f"{path} is on {fs_type or 'an unknown file system'} (mounted at {mountpoint}), which has no "
                      f"file layouts (stripe_count, stripe_unit, ...); iotune sets them on {known}")


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
