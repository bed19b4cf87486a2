"""The one workload vocabulary: an application's I/O in the benchmark's terms (paper 000, Sec. 2.2).

Paper 000 describes a parallel application's I/O by a few characteristics and
runs "the nearest IOR case"; iotune names those characteristics exactly as the
benchmark fields a spec's workload parameters use, so a profile can be pasted
where a workload is asked for (``iotune recommend --workload``, ``iotune run
--workload``, ``iotune tune --workload``, a spec's workload levels):

========================  ==========================================================
``api``                   POSIX, MPIIO or HDF5: the layer the I/O reaches storage through
``processes``             processes that do I/O (the benchmark's ranks)
``collective``            MPI-IO collective calls dominate
``file_per_process``      each process has its own file (else one shared file)
``transfer_size``         bytes per read or write call (the dominant request)
``block_size``            bytes one process moves per iteration, a multiple of
                          ``transfer_size`` (IOR's rule)
``segment_count``         I/O iterations
``operation``             write, read or readwrite
========================  ==========================================================

and, describing the source beyond what the benchmark runs: ``interface`` (what
the application called: POSIX, STDIO, MPIIO, HDF5, PnetCDF, DFS, ...),
``job_processes`` (every rank of the job), ``bytes_read``/``bytes_written``
(job totals), ``io_seconds`` (the slowest process's I/O time, when the source
timed it, e.g. Darshan), ``modules``, ``source``, ``notes`` and ``warnings``.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from iotune.errors import IotuneError, UnitError
from iotune.records import APIS, APIS_TEXT, OPERATIONS, BenchmarkSpec
from iotune.units import format_size, parse_size

BENCHMARK_FIELDS = ("api", "processes", "collective", "file_per_process", "transfer_size", "block_size",
                    "segment_count", "operation")
"""The fields a workload shares with the benchmark and with a spec's workload parameters."""
SIZE_FIELDS = ("transfer_size", "block_size", "bytes_read", "bytes_written")
INTERFACES = ("POSIX", "STDIO", "MPIIO", "HDF5", "PnetCDF", "DFS", "DAOS")
# HDF5 and PnetCDF reach the file through MPI-IO; STDIO, DFS and DAOS are measured through POSIX here.
BENCHMARK_API = {"POSIX": "POSIX", "STDIO": "POSIX", "MPIIO": "MPIIO", "HDF5": "MPIIO", "PnetCDF": "MPIIO",
                 "DFS": "POSIX", "DAOS": "POSIX"}
OLD_NAMES = {"io_processes": "processes", "request_size": "transfer_size", "bytes_per_process": "block_size",
             "iterations": "segment_count", "shared_file": "file_per_process (its opposite)"}
_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


class WorkloadError(IotuneError, ValueError):
    """A workload cannot be read or derived (a Darshan log, an IOR command line, a workload file, values)."""


@dataclass
class Workload:
    """One application's I/O in the benchmark's terms; sizes in bytes.  See the module docstring."""

    api: str
    processes: int
    transfer_size: int
    block_size: int
    collective: bool = False
    file_per_process: bool = False
    segment_count: int = 1
    operation: str = "write"
    interface: str = ""
    job_processes: int | None = None
    bytes_read: int = 0
    bytes_written: int = 0
    io_seconds: float | None = None
    modules: list[str] = field(default_factory=list)
    source: str = ""
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.api not in APIS:
            raise WorkloadError(f"api must be {APIS_TEXT}, got {self.api!r}")
        if self.interface and self.interface not in INTERFACES:
            raise WorkloadError(f"interface must be one of {', '.join(INTERFACES)}, got {self.interface!r}")
        if self.operation not in OPERATIONS:
            raise WorkloadError(f"operation must be one of {', '.join(OPERATIONS)}, got {self.operation!r}")
        for name in ("processes", "segment_count", "transfer_size", "block_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise WorkloadError(f"{name} must be a positive integer, got {value!r}")
        for name in ("bytes_read", "bytes_written"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise WorkloadError(f"{name} must be a non-negative number of bytes, got {value!r}")
        if self.job_processes is not None and self.job_processes < self.processes:
            raise WorkloadError(f"job_processes ({self.job_processes}) is below processes ({self.processes}), "
                                "the processes that did I/O")
        if self.block_size % self.transfer_size:
            raise WorkloadError(f"block_size ({self.block_size} B) must be a multiple of transfer_size "
                                f"({self.transfer_size} B), as IOR requires")
        if self.collective and self.api == "POSIX":
            raise WorkloadError("collective I/O needs api MPIIO or HDF5")

    @classmethod
    def from_io(cls, *, interface: str, processes: int, transfer_size: int, bytes_per_process: int,
                collective: bool, shared_file: bool, iterations: int = 1, bytes_read: int = 0, bytes_written: int = 0,
                job_processes: int | None = None, **described) -> Workload:
        """The workload of measured facts: the benchmark fields are derived here, and only here.

        The block is the bytes one process moves per iteration rounded up to a
        whole number of requests (IOR requires it); a request size of 0 (the
        source saw no sized request) becomes 1 byte, with a warning.
        """
        warnings = list(described.pop("warnings", []))
        if interface not in BENCHMARK_API:
            raise WorkloadError(f"interface must be one of {', '.join(INTERFACES)}, got {interface!r}")
        api = described.pop("api", None) or BENCHMARK_API[interface]  # HDF5 without its MPI-IO driver: POSIX
        if transfer_size < 1:
            warnings.append("no request size could be read: the benchmark uses 1-byte transfers, which only "
                            "approximate this workload")
            transfer_size = 1
        blocks = max(1, -(-bytes_per_process // transfer_size))
        if bytes_read and bytes_written:
            operation = "readwrite"
        else:
            operation = "read" if bytes_read else "write"
        return cls(api=api, processes=processes, transfer_size=transfer_size, block_size=blocks * transfer_size,
                   collective=collective and api == "MPIIO", file_per_process=not shared_file,
                   segment_count=max(1, iterations), operation=operation, interface=interface,
                   job_processes=job_processes, bytes_read=bytes_read, bytes_written=bytes_written,
                   warnings=warnings, **described)

    def values(self) -> dict[str, Any]:
        """The benchmark fields: what a spec's workload parameters of these names take."""
        return {name: getattr(self, name) for name in BENCHMARK_FIELDS}

    def to_benchmark_spec(self) -> BenchmarkSpec:
        """The nearest IOR-like run (paper 000, Sec. 2.2)."""
        return BenchmarkSpec(**self.values())

    def to_dict(self) -> dict:
        """Plain, JSON-ready data in this vocabulary (sizes in bytes)."""
        return asdict(self)

    def to_yaml_data(self) -> dict:
        """Like :meth:`to_dict`, sizes written with units (``4MiB``), as a workload file holds them."""
        data = self.to_dict()
        for name in SIZE_FIELDS:
            data[name] = format_size(data[name])
        return data

    @classmethod
    def from_mapping(cls, data: Any, source: str = "<mapping>") -> Workload:
        """A whole workload from a mapping in this vocabulary (a workload file); WorkloadError if invalid."""
        values = workload_values(data, source, descriptive=True)
        missing = [name for name in ("api", "processes", "transfer_size", "block_size") if name not in values]
        if missing:
            raise WorkloadError(f"{source}: missing workload field(s) {', '.join(missing)}")
        values.setdefault("source", source)
        try:
            return cls(**values)
        except WorkloadError as exc:
            raise WorkloadError(f"{source}: {exc}") from None


_KNOWN = tuple(f.name for f in fields(Workload))


def workload_values(data: Any, source: str = "--workload", *, descriptive: bool = False) -> dict[str, Any]:
    """Validated, normalised values of a (possibly partial) workload mapping: sizes in bytes, booleans, ints.

    Names are this module's vocabulary; an unknown one (or one of the older
    names) is refused with the closest known name.  Descriptive fields are kept
    only with ``descriptive``.
    """
    if not isinstance(data, Mapping):
        raise WorkloadError(f"{source}: a workload is a mapping of {', '.join(BENCHMARK_FIELDS)} to values")
    out: dict[str, Any] = {}
    for name, value in data.items():
        if name not in _KNOWN:
            if name in OLD_NAMES:
                hint = f"; it is now called {OLD_NAMES[name]}"
            else:
                close = difflib.get_close_matches(str(name), _KNOWN, n=1, cutoff=0.6)
                hint = f", did you mean {close[0]!r}?" if close else ""
            raise WorkloadError(f"{source}: unknown workload field {name!r}{hint} "
                                f"(fields: {', '.join(BENCHMARK_FIELDS)})")
        if (name not in BENCHMARK_FIELDS and not descriptive) or value is None:
            continue  # None: not known (e.g. job_processes of a workload given by hand)
        out[name] = _normalise(name, value, source)
    return out


def _normalise(name: str, value: Any, source: str) -> Any:
    try:
        if name in SIZE_FIELDS:
            if isinstance(value, bool):
                raise UnitError("a size is a number of bytes or has a unit")
            return parse_size(value)
        if name in ("collective", "file_per_process"):
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in _TRUE + _FALSE:
                return text in _TRUE
            raise ValueError("is not a boolean (true/false)")
        if name in ("processes", "segment_count", "job_processes"):
            if isinstance(value, bool):
                raise ValueError("is not a whole number")
            number = int(str(value).strip()) if isinstance(value, str) else value
            if not isinstance(number, int):
                raise ValueError("is not a whole number")
            return number
        if name in ("api", "operation", "interface", "source"):
            return str(value)
        if name == "io_seconds":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError("is not a non-negative number of seconds")
            return float(value)
        if name in ("modules", "notes", "warnings"):
            if not isinstance(value, list):
                raise ValueError("is not a list")
            return [str(v) for v in value]
    except (UnitError, ValueError, TypeError) as exc:
        raise WorkloadError(f"{source}: {name}: {value!r} {exc}") from None
    return value
