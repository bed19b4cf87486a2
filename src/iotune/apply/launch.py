"""What starting a command costs on this machine before its first I/O: the launcher and the interpreter.

``mpiexec -n 2 python app.py`` spends a second or more starting MPI and
Python before the application does anything; a wall time of such a run
measures that start-up mostly.  :func:`start_up` measures it once: the
command's launcher with the same options (``mpiexec -n 2``, ``srun -n 4``)
running the same interpreter doing nothing but start MPI (``python -c 'from
mpi4py import MPI'``, else ``python -c pass``; ``true`` for a compiled
program), :data:`LAUNCHES` times; the figures are cached in a
JSON file (the scratch directory) per host and launch prefix.
"""

from __future__ import annotations

import json
import math
import os
import socket
import statistics
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

LAUNCHERS = ("mpiexec", "mpirun", "mpiexec.hydra", "mpiexec.gforker", "srun", "aprun", "jsrun", "orterun")
# Launcher options that take a value in the next word (MPICH hydra, Open MPI, Slurm); ``-genv``/``-env`` take two.
VALUE_OPTIONS = {"-n", "-np", "--np", "-c", "-N", "-ppn", "--ppn", "-host", "-hosts", "--host", "-f", "-machinefile",
                 "--hostfile", "-hostfile", "-wdir", "-bind-to", "--bind-to", "-map-by", "--map-by", "-p",
                 "--partition", "-t", "--time", "-A", "--account", "--ntasks", "--nodes", "-iface", "-launcher",
                 "-x", "--mca"}
TWO_VALUE_OPTIONS = {"-genv", "-env", "--mca"}
LAUNCHES = 5
CACHE = "iotune-launch-overhead.json"


@dataclass(frozen=True)
class StartUp:
    """Seconds the empty launches took (``seconds``: each), what was run, and their median and spread."""

    command: tuple[str, ...]
    seconds: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def noise(self) -> float:
        """How far apart start-up alone can put two single runs (seconds): the 95% bound of the difference of two
        launches, t(0.975, n-1) x sqrt(2) x the launches' standard deviation (a prediction bound: the standard
        deviation is estimated from n launches, hence Student's t)."""
        if len(self.seconds) < 2:
            return math.inf
        from scipy.stats import t

        return float(t.ppf(0.975, len(self.seconds) - 1)) * math.sqrt(2) * statistics.stdev(self.seconds)

    def describe(self) -> str:
        return (f"start-up {self.median:.3f} s, median of {len(self.seconds)} runs of `{' '.join(self.command)}`; "
                f"start-up alone puts two runs up to {self.noise:.3f} s apart (95%)")


MPI_PYTHON = "from mpi4py import MPI"


def empty_launches(command: list[str]) -> list[list[str]]:
    """The empty launches to try, best first: a Python program under an MPI launcher most likely starts MPI
    with mpi4py (``mpiexec -n 2 python -c 'from mpi4py import MPI'``: MPI_Init and the import included), else
    the interpreter alone (:func:`empty_launch`)."""
    empty = empty_launch(command)
    if empty[-2:] == ["-c", "pass"] and Path(command[0]).name in LAUNCHERS:
        return [[*empty[:-1], MPI_PYTHON], empty]
    return [empty]


def empty_launch(command: list[str]) -> list[str]:
    """The command's launcher and interpreter doing nothing: ``mpiexec -n 2 python app.py`` ->
    ``mpiexec -n 2 python -c pass``; a program that is neither -> ``true`` under the same launcher (a
    compiled program's MPI_Init is then not included)."""
    words, index = list(command), 0
    if words and Path(words[0]).name in LAUNCHERS:
        index = 1
        while index < len(words) and words[index].startswith("-"):
            option = words[index].split("=", 1)[0]
            if "=" in words[index]:
                index += 1
            elif option in TWO_VALUE_OPTIONS:
                index += 3
            elif option in VALUE_OPTIONS:
                index += 2
            else:
                index += 1
    launcher, program = words[:index], words[index:index + 1]
    if program and Path(program[0]).name.startswith("python"):
        return [*launcher, program[0], "-c", "pass"]
    return [*launcher, "true"]


def _cache_key(command: list[str]) -> str:
    return f"{socket.gethostname()} {json.dumps(command)}"


def start_up(command: list[str], cache_dir: Path | None, environ: dict | None = None,
             launches: int = LAUNCHES, timeout: float = 120.0) -> StartUp | None:
    """The start-up of ``command`` on this host, measured once and cached in ``cache_dir``; None when no empty
    launch can run (the application's own run says why)."""
    cache = Path(cache_dir) / CACHE if cache_dir is not None else None
    key = _cache_key(empty_launch(command))
    known: dict = {}
    if cache is not None and cache.is_file():
        try:
            known = json.loads(cache.read_text())
            entry = known.get(key)
            if entry:
                return StartUp(tuple(entry["command"]), tuple(float(s) for s in entry["seconds"]))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            known = {}
    measured = None
    for empty in empty_launches(command):
        seconds = _time_launches(empty, environ, launches, timeout)
        if seconds:
            measured = StartUp(tuple(empty), tuple(seconds))
            break
    if measured is None:
        return None
    if cache is not None:
        known[key] = asdict(measured)
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            partial = cache.with_name(f"{cache.name}.{os.getpid()}")
            partial.write_text(json.dumps(known, indent=1))
            partial.replace(cache)
        except OSError:
            pass
    return measured


def _time_launches(empty: list[str], environ: dict | None, launches: int, timeout: float) -> list[float] | None:
    """Wall seconds of ``launches`` runs of ``empty``; None when one fails or cannot start."""
    seconds = []
    for _ in range(launches):
        begin = time.perf_counter()
        try:
            done = subprocess.run(empty, env=dict(os.environ if environ is None else environ), timeout=timeout,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if done.returncode != 0:
            return None
        seconds.append(time.perf_counter() - begin)
    return seconds


SHORT = 3.0
"""A wall time under SHORT x the start-up is mostly start-up."""


def short_run_warning(wall_seconds: float, startup: StartUp | None) -> str | None:
    """A warning when a run's wall time is mostly start-up, else None."""
    if startup is None or wall_seconds >= SHORT * startup.median:
        return None
    return (f"the objective is wall time and this run took {wall_seconds:.3f} s, of which about "
            f"{startup.median:.3f} s is start-up ({startup.describe()}): the wall time says little about I/O; "
            "give --metric 'REGEX' for the application's own I/O time or bandwidth line, or load Darshan "
            "(--darshan LIB)")
