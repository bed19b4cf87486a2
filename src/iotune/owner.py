"""Who a process is, in a form that outlives it, and the one rule for declaring an owner gone.

Workers that claim trials, a study's controller, trial directories on a
scratch that many nodes share and MPI worlds' socket directories are all named
by their owner, so that another process can tell, without guessing, whether
the owner still runs.  A pid alone says nothing (another node, another
container, a reused pid), so an owner names the host, the kernel boot
(``boot_id``), the pid namespace, the pid and the process start time::

    <host>_<boot>_<pidns>_<pid>_<start>

An owner is provably gone only when its host, boot and pid namespace are this
process's (so its pid can be looked up here) and that pid no longer runs with
that start time (so a reused pid is not taken for the owner).  An owner of
another host is never declared gone here, nor one of an earlier boot: host
names are not unique (two containers, two "localhost"s), and another boot id
may as well be another machine.  Such owners are judged by their heartbeats.
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

HOST_CHARS = 20  # keeps /tmp/iotune-world-<tag>_XXXXXXXX/control.sock under the 108-byte socket path limit
BOOT_CHARS = 12
OWNER = re.compile(r"(?P<host>[A-Za-z0-9.-]+)_(?P<boot>[0-9a-f]+)_(?P<pidns>\d+)_(?P<pid>\d+)_(?P<start>\d+)")


@dataclass(frozen=True)
class Owner:
    """Who made a directory: host (sanitised name), boot (boot id prefix), pidns (inode), pid, start (ticks)."""

    host: str
    boot: str
    pidns: int
    pid: int
    start: int

    @property
    def text(self) -> str:
        """The owner as stored (trials' and studies' ``owner``) and in names: ``host_boot_pidns_pid_start``."""
        return f"{self.host}_{self.boot}_{self.pidns}_{self.pid}_{self.start}"

    @property
    def tag(self) -> str:
        """The owner as it begins a directory name, followed by ``_``."""
        return self.text + "_"


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


def provably_gone(owner: Owner) -> bool:
    """True only when ``owner`` ran on this host (same kernel namespace) and certainly no longer runs."""
    me = current_owner()
    elsewhere = (owner.host, owner.boot, owner.pidns) != (me.host, me.boot, me.pidns)
    if me.boot == "0" or me.pidns == 0 or owner.start == 0 or elsewhere:
        return False  # another host, boot or container: its pids mean nothing here
    return process_start(owner.pid) != owner.start


def parse(text: str | None) -> Owner | None:
    """The owner ``text`` names (as :attr:`Owner.text` writes it), or None."""
    match = OWNER.fullmatch(text or "")
    if match is None:
        return None
    return Owner(match["host"], match["boot"], int(match["pidns"]), int(match["pid"]), int(match["start"]))


def process_owner() -> str:
    """This process as stored in the database (:attr:`Owner.text`)."""
    return current_owner().text


def owner_is_dead(text: str | None) -> bool:
    """True only when the stored owner ``text`` is provably gone (see the module docstring)."""
    owner = parse(text)
    return owner is not None and provably_gone(owner)


def local_pid(text: str | None) -> int | None:
    """The pid of the stored owner ``text`` when it is a live process here (same host, boot and pid namespace,
    same start time), else None.

    A process of another host is never local, even when a process here happens
    to have the same pid: only what this returns may be signalled.
    """
    owner = parse(text)
    me = current_owner()
    if owner is None or me.boot == "0" or (owner.host, owner.boot, owner.pidns) != (me.host, me.boot, me.pidns):
        return None
    return owner.pid if process_start(owner.pid) == owner.start else None
