"""Provenance of a measurement: the machine, the file system of the scratch directory, the MPI library."""

from __future__ import annotations

import functools
import os
import platform as _platform
import socket
import subprocess
import sys
from pathlib import Path

import iotune


def _unescape(field: str) -> str:
    # mountinfo escapes space, tab, newline and backslash as octal (proc(5)).
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field


def fs_type(path: Path, mountinfo: str = "/proc/self/mountinfo") -> str:
    """File system type of ``path``: the mount with the longest mount point that contains it ("" if unknown)."""
    target = Path(path).resolve()
    best, best_len = "", -1
    try:
        lines = Path(mountinfo).read_text().splitlines()
    except OSError:
        return ""
    for line in lines:
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        mount_point = Path(_unescape(left.split()[4]))
        if (target == mount_point or mount_point in target.parents) and len(str(mount_point)) >= best_len:
            best, best_len = right.split()[0], len(str(mount_point))
    return best


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo, else what the platform module says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith(("model name", "cpu model")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return _platform.processor()


@functools.lru_cache(maxsize=4)
def mpi_library_version(python: str = sys.executable) -> str:
    """First line of ``MPI_Get_library_version`` for ``python``'s mpi4py ("" if unavailable).

    Asked in a child process with ``mpi4py.rc.initialize = False`` (the call is
    allowed before MPI_Init), so the controller never initialises MPI itself.
    """
    code = (
        "import mpi4py; mpi4py.rc.initialize = False; mpi4py.rc.finalize = False\n"
        "from mpi4py import MPI; print(' '.join(MPI.Get_library_version().splitlines()[0].split()))"
    )
    try:
        done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def platform_info(scratch: Path, python: str = sys.executable) -> dict:
    """Facts that make a measurement reproducible: host, kernel, OS, CPU, cores, scratch fs type, MPI, versions."""
    library = mpi_library_version(python)
    name, _, version = library.partition("Version:")
    return {
        "hostname": socket.gethostname(),
        "kernel": os.uname().release,
        "os": _os_name(),
        "cpu_model": cpu_model(),
        "cores": os.cpu_count() or 0,
        "fs_type": fs_type(Path(scratch)),
        "mpi_library": name.strip() or library,
        "mpi_version": version.strip(),
        "iotune_version": iotune.__version__,
        "python_version": _platform.python_version(),
    }


def _os_name() -> str:
    try:
        release = _platform.freedesktop_os_release()
        return release.get("PRETTY_NAME") or release.get("NAME", "Linux")
    except OSError:
        return f"{_platform.system()} {_platform.release()}"
