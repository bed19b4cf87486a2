"""Directories named by their owner, and a sweep that removes only what a provably gone owner left.

A scratch directory may be shared by many nodes (Lustre, NFS), and ``/tmp`` by
containers of one kernel: a trial or world directory is named
``<prefix><owner tag>XXXXXXXX`` (:mod:`iotune.owner`), and a sweep removes one
only when its owner is provably gone (:func:`iotune.owner.provably_gone`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from iotune.owner import OWNER, Owner, current_owner, process_start, provably_gone

__all__ = ["Owner", "current_owner", "parse_owner", "process_start", "provably_gone", "remove_stale"]


def parse_owner(name: str, prefix: str) -> Owner | None:
    """The owner encoded in a directory name made with ``prefix``, or None when it has no owner tag."""
    if not name.startswith(prefix):
        return None
    match = OWNER.match(name, len(prefix))
    if match is None or name[match.end():match.end() + 1] != "_":
        return None
    return Owner(match["host"], match["boot"], int(match["pidns"]), int(match["pid"]), int(match["start"]))


def remove_stale(directory: Path, prefix: str) -> list[Path]:
    """Remove the entries ``prefix<owner tag>...`` of ``directory`` whose owner is provably gone; returns them."""
    removed: list[Path] = []
    try:
        candidates = sorted(Path(directory).glob(f"{prefix}*"))
    except OSError:
        return removed
    for path in candidates:
        owner = parse_owner(path.name, prefix)
        if owner is None or not provably_gone(owner) or path.is_symlink() or not path.is_dir():
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed
