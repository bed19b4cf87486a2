"""The testbed's blkio cgroup (cgroup v1): per-device throttles and starting processes inside it.

Pitfall (cgroup v1): buffered writes are not throttled when they are made.  The
page cache absorbs them and the kernel's flusher writes them back later on
behalf of the root cgroup, so only O_DIRECT I/O and the writeback a process
forces itself (fsync, fdatasync, sync_file_range) are limited.  Reads are
synchronous and throttled either way.  Measured on Linux 6.18: a 64 MiB dd at a
32 MiB/s write limit ran at 33.9 MB/s with oflag=direct, 33.6 MB/s with
conv=fsync and 425 MB/s buffered without fsync.  Even fsync'd writes escape in
part now and then (1 run in 12 at 2.5x the limit): pages that the flusher or the
ext4 journal thread write back before the fsync are charged to the root cgroup.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from pathlib import Path

from iotune.testbed.errors import TestbedError

BLKIO_ROOT = Path("/sys/fs/cgroup/blkio")
CGROUP_PREFIX = "iotune-"
THROTTLE_FILES = {
    "write_bps": "blkio.throttle.write_bps_device",
    "read_bps": "blkio.throttle.read_bps_device",
    "write_iops": "blkio.throttle.write_iops_device",
    "read_iops": "blkio.throttle.read_iops_device",
}


def check_ours(path: Path) -> Path:
    """``path`` when it is a testbed cgroup (iotune-* directly under the blkio root); TestbedError otherwise."""
    path = Path(path)
    if path.parent != BLKIO_ROOT or not path.name.startswith(CGROUP_PREFIX):
        raise TestbedError(f"{path} is not a testbed cgroup ({BLKIO_ROOT}/{CGROUP_PREFIX}*)")
    return path


def create(path: Path) -> None:
    """Create the cgroup directory (fails if it exists)."""
    check_ours(path).mkdir()


def set_limit(path: Path, kind: str, device_number: str, value: int) -> None:
    """Limit ``device_number`` ("MAJOR:MINOR") to ``value`` bytes or operations a second (``kind``: THROTTLE_FILES)."""
    try:
        (check_ours(path) / THROTTLE_FILES[kind]).write_text(f"{device_number} {int(value)}\n")
    except OSError as error:
        raise TestbedError(f"cannot set {THROTTLE_FILES[kind]} of {path}: {error.strerror or error}") from None


def limits(path: Path) -> dict[str, dict[str, int]]:
    """The throttles in effect, read back: kind -> {"MAJOR:MINOR": value}."""
    found = {}
    for kind, name in THROTTLE_FILES.items():
        rules = {}
        for line in (Path(path) / name).read_text().splitlines():
            device, value = line.split()
            rules[device] = int(value)
        found[kind] = rules
    return found


def members(path: Path) -> list[int]:
    """Process ids in the cgroup."""
    try:
        return [int(pid) for pid in (Path(path) / "cgroup.procs").read_text().split()]
    except OSError:
        return []


def remove(path: Path, attempts: int = 10) -> list[int]:
    """Remove the cgroup; processes still inside move to the parent (unthrottled), never killed.

    Returns the pids that were moved out.
    """
    path = check_ours(path)
    moved: list[int] = []
    for _ in range(attempts):
        if not path.exists():
            return moved
        for pid in members(path):
            try:
                (path.parent / "cgroup.procs").write_text(str(pid))
                moved.append(pid)
            except OSError:  # exited meanwhile
                pass
        try:
            path.rmdir()
            return moved
        except FileNotFoundError:
            return moved
        except OSError:
            time.sleep(0.1)
    raise TestbedError(f"cannot remove cgroup {path}: still busy")


def cgroup_of(pid: int) -> str | None:
    """The blkio cgroup path (as in /proc/PID/cgroup, e.g. "/iotune-12-0") of a process, or None."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, where = line.split(":", 2)
        if "blkio" in controllers.split(","):
            return where
    return None


def join_prefix(path: Path) -> list[str]:
    """argv prefix that moves the process into the cgroup, then runs the rest of argv in it."""
    procs = shlex.quote(str(check_ours(path) / "cgroup.procs"))
    return ["/bin/sh", "-c", f'echo $$ > {procs} || exit 125; exec "$@"', "iotune-cgroup"]


def run_in_cgroup(path: Path, argv: list[str], **popen_kwargs) -> subprocess.Popen:
    """Start ``argv`` inside the cgroup; its children stay in it.  Exit status 125 when joining failed."""
    return subprocess.Popen(join_prefix(path) + list(argv), **popen_kwargs)


def write_wrapper(script: Path, path: Path, program: str) -> Path:
    """An executable script that joins the cgroup, then execs ``program`` with its arguments."""
    procs = shlex.quote(str(check_ours(path) / "cgroup.procs"))
    script.write_text(f'#!/bin/sh\necho $$ > {procs} || exit 125\nexec {shlex.quote(program)} "$@"\n')
    os.chmod(script, 0o755)
    return script
