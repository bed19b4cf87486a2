"""Runner interface and the built-in runner that executes trials on a persistent MPI world."""

from __future__ import annotations

import importlib.util
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Protocol

from iotune.bench.kernel import CACHE_MODES
from iotune.bench.ownership import current_owner, remove_stale
from iotune.bench.world import WorkerWorld, WorldSetupError, check_host_name, find_mpiexec
from iotune.errors import MpiNotFoundError
from iotune.fslayout import LayoutError, driver_for
from iotune.records import BenchmarkSpec, Measurement
from iotune.shield import shielded
from iotune.units import format_size


class Runner(Protocol):
    """Executes one trial and reports it; a failed trial is a FAILED Measurement, never an exception.

    The exception is a fault of this process's setup that no trial can get past (a BenchError such as
    :class:`~iotune.bench.world.WorldSetupError`): raised, it stops the campaign and leaves the trial queued.
    """

    name: str

    def run(self, spec: BenchmarkSpec, scratch: Path) -> Measurement: ...

    def close(self) -> None: ...


# IOR's -l packet type that writes what each iotune data pattern writes (IOR 4's utilities.c): IOR's own
# "offset" is a counting sequence with stamped pages (zlib ratio about 5), its "random" is incompressible and
# unique per transfer like iotune's "offset"; "timestamp" is IOR's default.
IOR_PACKET_TYPES = {"offset": "random", "timestamp": None}

# What keeps an IOR read from the page cache between its write and read runs, as shell text.
_EVICT_COMMANDS = {
    "drop_caches": "sync && echo 3 > /proc/sys/vm/drop_caches",
    "fadvise_dontneed": 'sync && for f in {target}*; do dd if="$f" iflag=nocache count=0 status=none; done',
}


def ior_args(spec: BenchmarkSpec, phases: str | None = None) -> list[str]:
    """IOR options (without the program name) that do what ``spec`` does, one repetition."""
    args = ["-a", spec.api]
    if spec.api == "MPIIO" and spec.collective:
        args.append("-c")
    if spec.file_per_process:
        args.append("-F")
    if phases is None:
        phases = {"write": "w", "read": "r", "readwrite": "wr"}[spec.operation]
    args += [f"-{flag}" for flag in phases]
    if spec.fsync and "w" in phases:
        args.append("-e")
    if spec.verify and "r" in phases:
        args.append("-R")
    packet = IOR_PACKET_TYPES.get(spec.data_pattern)
    if packet:
        args += ["-l", packet]
    args += ["-t", format_size(spec.transfer_size, "ior"), "-b", format_size(spec.block_size, "ior")]
    args += ["-s", str(spec.segment_count), "-i", "1"]
    return args


def ior_command_line(spec: BenchmarkSpec, test_file: str | None = None, cache_mode: str = "page_cache") -> str:
    """An IOR command line equivalent to ``spec``, with hints as IOR_HINT__MPI__ variables.

    Operation "read" (read of a file written untimed) is two IOR runs: ``-w -k``
    to write and keep the file, then ``-r -E`` to read the existing file.  With
    ``cache_mode`` "drop_caches" or "fadvise_dontneed", "readwrite" is split the
    same way and the eviction runs between the two; IOR itself does nothing to
    keep a read from the page cache.
    """
    env = {f"IOR_HINT__MPI__{key}": value for key, value in spec.hints.items()}
    env.update(spec.env)
    prefix = [f"{key}={shlex.quote(str(value))}" for key, value in env.items()]
    launcher = ["mpiexec", "-n", str(spec.processes), "ior"]
    target = ["-o", shlex.quote(test_file)] if test_file else []
    evict = _EVICT_COMMANDS.get(cache_mode) if spec.operation != "write" else None
    if spec.operation == "read" or evict:
        write = prefix + launcher + ior_args(spec, "w") + ["-k"] + target
        read = prefix + launcher + ior_args(spec, "r") + ["-E"] + target
        steps = [" ".join(write)]
        if evict:
            steps.append(evict.format(target=shlex.quote(test_file or "testFile")))
        return " && ".join(steps + [" ".join(read)])
    return " ".join(prefix + launcher + ior_args(spec) + target)


TRIAL_PREFIX = "iotune-trial-"


def remove_stale_trial_dirs(scratch: Path) -> list[Path]:
    """Remove trial directories in ``scratch`` whose owner provably no longer runs (a SIGKILLed runner).

    Trial directories are named ``iotune-trial-<host>_<boot>_<pidns>_<pid>_<start>_XXXXXXXX``
    (:mod:`iotune.bench.ownership`): on a scratch shared by several nodes, a directory
    of another host, or one without an owner tag, is never touched.
    """
    return remove_stale(Path(scratch), TRIAL_PREFIX)


def make_trial_dir(scratch: Path) -> Path:
    """Create a unique per-trial directory directly inside ``scratch``, named by host and owner.

    Raises OSError when ``scratch`` is unusable or the directory would land outside it.
    """
    root = Path(scratch).resolve(strict=True)
    if not root.is_dir():
        raise NotADirectoryError(f"{root} is not a directory")
    trial = Path(tempfile.mkdtemp(prefix=TRIAL_PREFIX + current_owner().tag, dir=root)).resolve()
    if trial.parent != root:
        shutil.rmtree(trial, ignore_errors=True)
        raise PermissionError(f"trial directory {trial} escaped {root}")
    return trial


class BuiltinRunner:
    """Runs IOR-semantics trials with iotune's own MPI kernel on a persistent worker world.

    One :class:`WorkerWorld` is kept alive per process count and environment
    (``spec.env`` is applied when the world starts); a trial with another count
    or environment replaces it, so at most one world is alive.  ``timeout`` is
    seconds per trial; ``cache_mode`` is how reads avoid the page cache
    ("auto", "drop_caches", "o_direct", "fadvise_dontneed", "page_cache").
    ``nodes`` > 1 spreads each trial's ranks over that many nodes: those of the
    Slurm allocation the runner is built in (:class:`WorkerWorld`).
    """

    name = "builtin"

    def __init__(self, mpiexec: str | None = None, timeout: float = 600.0, cache_mode: str = "auto",
                 nodes: int = 1):
        if cache_mode not in CACHE_MODES:
            raise ValueError(f"cache_mode must be one of {', '.join(CACHE_MODES)}, got {cache_mode!r}")
        self.mpiexec = find_mpiexec(mpiexec)
        check_host_name()
        if importlib.util.find_spec("mpi4py") is None:
            raise MpiNotFoundError(f"mpi4py is not installed for {sys.executable}; pip install mpich mpi4py")
        self.timeout = timeout
        self.cache_mode = cache_mode
        self.nodes = nodes
        self._world: WorkerWorld | None = None
        self._world_key: tuple | None = None
        self._swept: set[Path] = set()
        self._trial_dirs: set[Path] = set()

    def __enter__(self) -> BuiltinRunner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def world(self) -> WorkerWorld | None:
        """The worker world kept alive between trials (None before the first trial)."""
        return self._world

    def _world_for(self, spec: BenchmarkSpec) -> WorkerWorld:
        key = (spec.processes, tuple(sorted(spec.env.items())))
        if self._world is None or self._world_key != key:
            self._close_world()
            self._world = WorkerWorld(spec.processes, self.mpiexec, env=spec.env, timeout=self.timeout,
                                      nodes=self.nodes)
            self._world_key = key
        return self._world

    def run(self, spec: BenchmarkSpec, scratch: Path) -> Measurement:
        """Run one trial in a fresh subdirectory of ``scratch``, removed afterwards."""
        started = time.perf_counter()
        problem = spec.problem()
        trial_dir = None
        if problem:
            measurement = Measurement.failed(f"invalid benchmark spec: {problem}")
        else:
            if Path(scratch) not in self._swept:
                remove_stale_trial_dirs(Path(scratch))
                self._swept.add(Path(scratch))
            try:
                with shielded():  # a signal between mkdtemp and the assignments would leave the directory
                    trial_dir = make_trial_dir(Path(scratch))
                    self._trial_dirs.add(trial_dir)
            except OSError as exc:
                measurement = Measurement.failed(
                    f"scratch directory {str(scratch)!r} is not usable: {exc.strerror or exc}"
                )
            else:
                try:
                    if spec.layout:  # refused here in one line, not by a rank that would abort the world
                        driver_for(trial_dir).check(spec.layout)
                    measurement = self._world_for(spec).run(spec, trial_dir, self.cache_mode)
                except LayoutError as exc:
                    measurement = Measurement.failed(str(exc))
                except WorldSetupError:
                    raise  # no trial can run here: the campaign stops and the trial stays queued
                except Exception as exc:  # noqa: BLE001 - a trial failure is reported, never raised
                    self._close_world()
                    measurement = Measurement.failed(f"{type(exc).__name__}: {exc}".replace("\n", " "))
                finally:
                    self._remove_trial_dir(trial_dir)
        measurement.hints_requested = dict(spec.hints)
        measurement.runner = self.name
        measurement.command = ior_command_line(spec, cache_mode=measurement.read_cache_mode)
        measurement.wall_seconds = time.perf_counter() - started
        return measurement

    def _remove_trial_dir(self, trial_dir: Path) -> None:
        with shielded():
            shutil.rmtree(trial_dir, ignore_errors=True)
            self._trial_dirs.discard(trial_dir)

    def close(self) -> None:
        """Stop the worker world, if any, and remove a trial directory that a signal kept from its removal."""
        for trial_dir in list(self._trial_dirs):
            self._remove_trial_dir(trial_dir)
        self._close_world()

    def _close_world(self) -> None:
        if self._world is not None:
            self._world.close()
        self._world = None
        self._world_key = None
