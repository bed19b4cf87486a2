"""Who a process is, in a form that survives the process: host, pid and the pid's start time.

Workers that claim trials, the controller of a study and the trial directories
of a run are named by their owner, so that another process can tell, without
guessing, whether the owner still runs.  Only an owner on *this* host can be
proven dead (its pid is gone, or the pid now belongs to a process that started
later); an owner on another host is judged by its heartbeat alone.
"""

from __future__ import annotations

import os
import socket
from functools import lru_cache


def start_ticks(pid: int) -> str | None:
    """The start time of ``pid`` in clock ticks since boot (field 22 of /proc/PID/stat), or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return fields[19]
    except (OSError, IndexError):
        return None


def _boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as boot:
            return boot.read().strip()[:8]
    except OSError:
        return "noboot"


@lru_cache(maxsize=1)
def this_host() -> str:
    """This host's name as owners record it (no colons)."""
    return socket.gethostname().replace(":", "_") or "localhost"


def process_owner(pid: int | None = None) -> str:
    """``host:pid:boot:start`` of this process (or of ``pid``): unique across hosts, reboots and pid reuse."""
    pid = os.getpid() if pid is None else pid
    return f"{this_host()}:{pid}:{_boot_id()}:{start_ticks(pid) or 0}"


def owner_is_dead(owner: str | None) -> bool:
    """True only when ``owner`` provably no longer runs: it is of this host and boot, and its pid is gone or reused.

    An owner of another host, or one that cannot be read, is never declared dead here.
    """
    if not owner:
        return False
    parts = owner.split(":")
    if len(parts) != 4 or parts[0] != this_host() or not parts[1].isdigit():
        return False
    host, pid, boot, ticks = parts
    if boot != _boot_id():
        return True
    return start_ticks(int(pid)) != ticks


def local_pid(owner: str | None) -> int | None:
    """The pid of ``owner`` when it is a live process of this host (same host, boot and start time), else None.

    A process of another host is never "local", even when a process of this
    host happens to have the same pid: only what this returns may be signalled.
    """
    if not owner:
        return None
    parts = owner.split(":")
    if len(parts) != 4 or parts[0] != this_host() or not parts[1].isdigit() or parts[2] != _boot_id():
        return None
    pid = int(parts[1])
    return pid if start_ticks(pid) == parts[3] else None


def owner_host(owner: str | None) -> str | None:
    """The host part of an owner."""
    return owner.split(":", 1)[0] if owner else None
