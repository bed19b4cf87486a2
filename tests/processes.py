"""What processes hold, seen from /proc: temporary files, listening sockets, liveness (shared by several tests)."""

from __future__ import annotations

import ipaddress
import os
import signal
import time
from pathlib import Path


def default_signals() -> None:
    """``preexec_fn`` for a child that a test signals: SIGINT, SIGHUP and SIGTERM at their defaults even when this
    run inherited them ignored (pytest under nohup or as a background job), since iotune leaves an ignored signal
    ignored and the test is of iotune's handlers."""
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pids: list[int], seconds: float = 15.0) -> list[int]:
    """Wait up to ``seconds`` for ``pids`` to end; those still alive."""
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if alive(pid)]


def descendants(root: int) -> list[int]:
    """``root`` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def temporary_files(pids: list[int]) -> set[str]:
    """Files under /dev/shm, and files directly in /tmp, that ``pids`` map or hold open (not deleted ones)."""
    found = set()
    for pid in pids:
        paths = []
        try:
            paths += [line.split(maxsplit=5)[5] for line in Path(f"/proc/{pid}/maps").read_text().splitlines()
                      if len(line.split(maxsplit=5)) == 6]
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    paths.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
                except OSError:
                    pass
        except OSError:
            continue
        found |= {p for p in paths if not p.endswith(" (deleted)")
                  and (p.startswith("/dev/shm/") or Path(p).parent == Path("/tmp"))}
    return found


def listening_sockets(pids: list[int]) -> list[tuple[str, int]]:
    """(address, port) of every TCP socket in LISTEN and every bound UDP socket that ``pids`` hold."""
    inodes = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    found = []
    for table, listening in (("tcp", "0A"), ("tcp6", "0A"), ("udp", "07"), ("udp6", "07")):
        try:
            lines = Path(f"/proc/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] != listening or fields[9] not in inodes:
                continue
            address, port = fields[1].split(":")
            raw = bytes.fromhex(address)
            # /proc/net prints the address as 32-bit words in host (little-endian) order
            packed = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
            found.append((str(ipaddress.ip_address(packed)), int(port, 16)))
    return found


def exposed(sockets: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The sockets bound to an address other than loopback (0.0.0.0 and :: included)."""
    return [s for s in sockets if not ipaddress.ip_address(s[0]).is_loopback]
