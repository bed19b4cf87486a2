"""CephFS layouts: the ``ceph.file.layout.*`` and ``ceph.dir.layout.*`` virtual xattrs.

A file's layout can be set only while it is empty (ENOTEMPTY afterwards, the
contract of ``lfs setstripe`` too).  Ceph's rules: ``stripe_unit`` a multiple of
64 KiB, ``object_size`` a multiple of ``stripe_unit``.  ROMIO has no CephFS
driver (on a ceph-fuse mount it uses its generic one and drops
``striping_factor``/``striping_unit``), so the layout is set here, never by hints.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from iotune.fslayout.base import LayoutDriver, LayoutError

STRIPE_UNIT_QUANTUM = 64 * 1024
# fields in an order that keeps every intermediate layout valid when units grow (object_size first) ...
GROWING = ("object_size", "stripe_unit", "stripe_count", "pool")
# ... and when they shrink (stripe_unit first)
SHRINKING = ("stripe_unit", "object_size", "stripe_count", "pool")


def parse(text: str) -> dict[str, str]:
    """``stripe_unit=4194304 stripe_count=1 object_size=4194304 pool=cephfs_data`` as a dict."""
    return dict(word.split("=", 1) for word in text.split() if "=" in word)


class CephFSDriver(LayoutDriver):
    name = "cephfs"
    fs_types = ("fuse.ceph-fuse", "ceph", "fuse.ceph")
    fields = ("stripe_count", "stripe_unit", "object_size", "pool")

    def check(self, layout: dict) -> dict[str, str]:
        layout = super().check(layout)
        unit = int(layout.get("stripe_unit", STRIPE_UNIT_QUANTUM))
        if unit % STRIPE_UNIT_QUANTUM:
            raise LayoutError(f"cephfs stripe_unit must be a multiple of 65536 bytes (64 KiB), got {unit}")
        if "object_size" in layout and "stripe_unit" in layout and int(layout["object_size"]) % unit:
            raise LayoutError(f"cephfs object_size ({layout['object_size']}) must be a multiple of stripe_unit "
                              f"({unit})")
        return layout

    def _set(self, path: Path, prefix: str, layout: dict) -> None:
        layout = self.check(layout)
        current = self._read(path, prefix) or {}
        grows = int(layout.get("stripe_unit", 0)) > int(current.get("object_size", 0) or 0)
        orders = (GROWING, SHRINKING) if grows else (SHRINKING, GROWING)
        for attempt, order in enumerate(orders):
            try:
                for name in (n for n in order if n in layout):
                    os.setxattr(path, f"{prefix}.{name}", layout[name].encode())
                return
            except OSError as error:
                if error.errno == errno.ENOTEMPTY:
                    raise LayoutError(f"{path} already holds data: a cephfs layout is set on an empty file "
                                      "or on its directory") from None
                if error.errno != errno.EINVAL or attempt == len(orders) - 1:
                    raise LayoutError(f"cannot set {prefix}.{name}={layout[name]} on {path}: "
                                      f"{error.strerror}") from None

    def set_file(self, path: Path, layout: dict) -> None:
        with open(path, "ab"):
            pass
        self._set(path, "ceph.file.layout", layout)

    def set_directory(self, path: Path, layout: dict) -> None:
        self._set(path, "ceph.dir.layout", layout)

    @staticmethod
    def _read(path: Path, prefix: str) -> dict[str, str] | None:
        try:
            return parse(os.getxattr(path, prefix).decode())
        except OSError as error:
            if error.errno == errno.ENODATA:  # a directory without a layout of its own
                return None
            raise LayoutError(f"cannot read {prefix} of {path}: {error.strerror}") from None

    def read(self, path: Path) -> dict[str, str]:
        prefix = "ceph.dir.layout" if Path(path).is_dir() else "ceph.file.layout"
        return self._read(path, prefix) or {}


DRIVER = CephFSDriver()
