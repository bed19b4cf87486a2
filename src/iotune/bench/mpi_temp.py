"""Temporary files MPICH leaves when its processes are killed, found by what the processes hold.

MPICH's ch4 shared-memory layer creates ``/dev/shm/mpich_shm_<id>_<node>`` (about
2 MiB; ``<id>`` is the FNV-1a hash of the job's PMI KVS name, ``<node>`` the node
index; ``mpich_vci_<id>_<node>`` with several VCIs) and MPL's segments
``/dev/shm/mpich_shar_tmpXXXXXX``; hydra's proxy writes the hwloc topology to
``/tmp/hydra_hwloc_xmlfile_XXXXXX``.  MPI_Finalize and a proxy that exits normally
remove them; a SIGKILL leaves them behind.  The names carry a hash or a random
suffix, not a pid, so they cannot be told apart by name: a world's files are
the ones its ranks map and its launcher processes hold open, recorded with their
inode while the processes run and removed, inode unchanged, after they are gone.
Another job's files are never held by our processes, so they are never touched.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

PREFIXES = ("/dev/shm/mpich_", "/tmp/mpich_", "/tmp/hydra_hwloc_xmlfile_")


@dataclass(frozen=True)
class HeldFile:
    """An MPI temporary file as a process held it: path, st_dev and st_ino."""

    path: str
    device: int
    inode: int


def _ours(path: str) -> bool:
    # a deleted file shows as "<path> (deleted)": nothing left to remove
    return path.startswith(PREFIXES) and " " not in path and "/" not in path.split("_", 1)[1]


def held_by(pid: int) -> set[HeldFile]:
    """MPI temporary files that ``pid`` maps or has open (empty when it is gone or not ours to read)."""
    found: set[HeldFile] = set()
    try:
        with open(f"/proc/{pid}/maps") as handle:
            lines = handle.read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and _ours(fields[5]):
            major, minor = fields[3].split(":")
            found.add(HeldFile(fields[5], os.makedev(int(major, 16), int(minor, 16)), int(fields[4])))
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        descriptors = []
    for fd in descriptors:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if not _ours(target):
                continue
            status = os.stat(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        found.add(HeldFile(target, status.st_dev, status.st_ino))
    return found


def held_by_any(pids: list[int]) -> set[HeldFile]:
    """Union of :func:`held_by` over ``pids``."""
    found: set[HeldFile] = set()
    for pid in pids:
        found |= held_by(pid)
    return found


def remove(files: set[HeldFile]) -> list[str]:
    """Unlink each file whose path still names the same inode (a file made since under that name stays)."""
    removed = []
    for held in sorted(files, key=lambda f: f.path):
        try:
            status = os.lstat(held.path)
            if (status.st_dev, status.st_ino) != (held.device, held.inode):
                continue
            os.unlink(held.path)
        except OSError:
            continue
        removed.append(held.path)
    return removed


def remove_own() -> list[str]:
    """Remove the MPI temporary files this process maps or holds (a rank leaving without MPI_Finalize)."""
    return remove(held_by(os.getpid()))
