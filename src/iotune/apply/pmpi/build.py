"""Build iotune's PMPI library with the ``mpicc`` of the MPI the application runs on, once, into a per-user cache.

The library must be compiled against the MPI the application calls (a PMPI
library built for one MPICH does not fit another), so the compiler is found
next to the command's launcher: ``IOTUNE_MPICC`` if set, else the ``mpicc``
beside the ``mpiexec`` (``mpirun``, ...) the command starts with, else beside
the running Python (the ``mpich`` wheel's), else ``mpicc`` on ``PATH``.  The
built library is cached under ``IOTUNE_PMPI_CACHE``, else
``$XDG_CACHE_HOME/iotune/pmpi``, else ``~/.cache/iotune/pmpi``, in a directory
named by a hash of the source, the compiler's real path and its contents and
``mpicc -show``: a new MPI or a new source builds anew, and every later run
reuses it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from iotune.errors import IotuneError

SOURCE = Path(__file__).with_name("iotune_pmpi.c")
LIBRARY = "libiotune_pmpi.so"
LAUNCHERS = ("mpiexec", "mpirun", "mpiexec.hydra", "mpiexec.gforker")
BUILD_TIMEOUT_S = 120.0


class PmpiUnavailable(IotuneError, RuntimeError):
    """iotune's PMPI library cannot be built here (no mpicc, no C compiler, or the build failed)."""


def find_mpicc(command: list[str] | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """The ``mpicc`` of the MPI ``command`` runs on (see the module's docstring), or None when there is none."""
    environ = os.environ if environ is None else environ
    if environ.get("IOTUNE_MPICC"):
        return environ["IOTUNE_MPICC"]
    path = environ.get("PATH", os.defpath)
    if command and Path(command[0]).name in LAUNCHERS:
        launcher = shutil.which(command[0], path=path)
        if launcher is not None:
            beside = Path(launcher).parent / "mpicc"
            if beside.is_file():
                return str(beside)
    beside = Path(sys.executable).parent / "mpicc"
    if beside.is_file():
        return str(beside)
    return shutil.which("mpicc", path=path)


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if environ is None else environ
    if environ.get("IOTUNE_PMPI_CACHE"):
        return Path(environ["IOTUNE_PMPI_CACHE"])
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "iotune" / "pmpi"


def _identity(mpicc: str) -> str:
    """A hash of what the built library depends on: the source, the compiler wrapper and how it compiles."""
    digest = hashlib.sha256(SOURCE.read_bytes())
    real = Path(mpicc).resolve()
    digest.update(str(real).encode())
    try:
        digest.update(real.read_bytes())
    except OSError:
        pass
    for option in ("-show", "--showme"):  # MPICH, Open MPI
        try:
            shown = subprocess.run([mpicc, option], capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if shown.returncode == 0:
            digest.update(shown.stdout)
            break
    return digest.hexdigest()[:16]


def library(command: list[str] | None = None, environ: Mapping[str, str] | None = None,
            on_build=None) -> Path:
    """The PMPI library for the MPI ``command`` runs on, built first if the cache lacks it (``on_build(mpicc)``
    is called then); PmpiUnavailable, one line, when it cannot be built."""
    environ = os.environ if environ is None else environ
    mpicc = find_mpicc(command, environ)
    if mpicc is None:
        raise PmpiUnavailable("iotune's PMPI library needs mpicc (the mpich package's, or set IOTUNE_MPICC) to be "
                              "built, and none was found")
    if shutil.which(mpicc, path=environ.get("PATH", os.defpath)) is None and not Path(mpicc).is_file():
        raise PmpiUnavailable(f"iotune's PMPI library cannot be built: mpicc {mpicc} is not there")
    target = cache_root(environ) / _identity(mpicc) / LIBRARY
    if target.is_file():
        return target
    if on_build is not None:
        on_build(mpicc)
    _build(mpicc, target, environ)
    return target


def _build(mpicc: str, target: Path, environ: Mapping[str, str]) -> None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PmpiUnavailable(f"iotune's PMPI library cannot be built: {target.parent}: {exc.strerror}") from None
    partial = target.with_name(f"{LIBRARY}.{os.getpid()}")
    command = [mpicc, "-O2", "-shared", "-fPIC", "-pthread", "-o", str(partial), str(SOURCE)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, env=dict(environ),
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PmpiUnavailable(f"iotune's PMPI library cannot be built with {mpicc}: {exc}") from None
    if done.returncode != 0 or not partial.is_file():
        lines = (done.stderr or done.stdout).strip().splitlines()
        reason = next((line for line in lines if "error" in line.lower()), lines[0] if lines else "")
        partial.unlink(missing_ok=True)
        raise PmpiUnavailable(f"iotune's PMPI library cannot be built with {mpicc} (exit status {done.returncode}"
                              f"{': ' + reason.strip() if reason else ''}); a C compiler (cc) is needed")
    partial.replace(target)  # atomic: a concurrent build of the same library writes the same file
