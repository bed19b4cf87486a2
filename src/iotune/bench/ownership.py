"""Names that say which process on which host owns a directory, and a sweep that trusts only proof.

A scratch directory may be shared by many nodes (Lustre, NFS), and ``/tmp`` by
containers of one kernel, so a pid alone says nothing about whether the owner
still runs.  An owner tag names the host, the kernel boot (``boot_id``), the pid
namespace, the pid and the process start time::

    <host>_<boot>_<pidns>_<pid>_<start>

A directory may be removed as stale only when its host, boot and pid namespace
are this process's (so the pid can be looked up here) and that pid no longer
runs with that start time (so a reused pid is not taken for the owner).  A
directory of another host is never touched, whatever its age; nor is one of an
earlier boot, because host names are not unique (two containers, two
"localhost"s) and another boot id may as well be another machine.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

HOST_CHARS = 20  # keeps /tmp/iotune-world-<tag>_XXXXXXXX/control.sock under the 108-byte socket path limit
BOOT_CHARS = 12
_TAG = re.compile(r"(?P<host>[A-Za-z0-9.-]+)_(?P<boot>[0-9a-f]+)_(?P<pidns>\d+)_(?P<pid>\d+)_(?P<start>\d+)_")


@dataclass(frozen=True)
class Owner:
    """Who made a directory: host (sanitised name), boot (boot id prefix), pidns (inode), pid, start (ticks)."""

    host: str
    boot: str
    pidns: int
    pid: int
    start: int

    @property
    def tag(self) -> str:
        """The owner as it appears in a directory name, followed by ``_``."""
        return f"{self.host}_{self.boot}_{self.pidns}_{self.pid}_{self.start}_"


def host_name() -> str:
    """This host's name as used in tags: [A-Za-z0-9.-] only, at most 20 characters (else a hash of it)."""
    name = socket.gethostname() or "localhost"
    if len(name) <= HOST_CHARS and re.fullmatch(r"[A-Za-z0-9.-]+", name):
        return name
    return "h" + hashlib.sha1(name.encode()).hexdigest()[: HOST_CHARS - 1]


@lru_cache(maxsize=1)
def boot_id() -> str:
    """The first 12 hex digits of this kernel's boot id ("0" when unknown, which never matches a sweep)."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip().replace("-", "")[:BOOT_CHARS] or "0"
    except OSError:
        return "0"


def pid_namespace() -> int:
    """Inode of this process's pid namespace (0 when unknown)."""
    try:
        return int(re.sub(r"\D", "", os.readlink("/proc/self/ns/pid")) or 0)
    except OSError:
        return 0


def process_start(pid: int) -> int | None:
    """Start time of ``pid`` in clock ticks since boot, or None when it does not run (or is a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] == "Z" else int(fields[19])


def current_owner() -> Owner:
    """This process as an owner."""
    pid = os.getpid()
    return Owner(host_name(), boot_id(), pid_namespace(), pid, process_start(pid) or 0)


def parse_owner(name: str, prefix: str) -> Owner | None:
    """The owner encoded in a directory name made with ``prefix``, or None when it has no owner tag."""
    if not name.startswith(prefix):
        return None
    match = _TAG.match(name, len(prefix))
    if match is None:
        return None
    return Owner(match["host"], match["boot"], int(match["pidns"]), int(match["pid"]), int(match["start"]))


def provably_gone(owner: Owner) -> bool:
    """True only when ``owner`` ran on this host (same kernel namespace) and certainly no longer runs."""
    me = current_owner()
    if me.boot == "0" or me.pidns == 0 or owner.start == 0 or (owner.host, owner.boot, owner.pidns) != (me.host, me.boot, me.pidns):
        return False  # another host, boot or container: its pids mean nothing here
    return process_start(owner.pid) != owner.start


def remove_stale(directory: Path, prefix: str) -> list[Path]:
    """Remove the entries ``prefix<owner tag>...`` of ``directory`` whose owner is provably gone; returns them."""
    removed = []
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
