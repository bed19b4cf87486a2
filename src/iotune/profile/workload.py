"""What an application does with I/O, in the terms of paper 000, Section 2.2.

Paper 000 (ACIC) describes a parallel application's I/O by a few
characteristics: number of processes and of I/O processes, I/O interface,
I/O iteration count, data size per I/O process per iteration, request size,
read and/or write, collective or not, and shared file or file per process;
it then runs the nearest IOR case.  :class:`Workload` holds exactly these,
with units in bytes, and :meth:`Workload.to_benchmark_spec` is that IOR case.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from iotune.records import BenchmarkSpec
from iotune.errors import IotuneError

APIS = ("POSIX", "MPIIO", "HDF5", "PnetCDF", "STDIO")
# HDF5 and PnetCDF reach the file through MPI-IO, STDIO through POSIX (paper 000, Section 2.2: "I/O interface").
BENCHMARK_API = {"POSIX": "POSIX", "STDIO": "POSIX", "MPIIO": "MPIIO", "HDF5": "MPIIO", "PnetCDF": "MPIIO"}


class ProfileError(IotuneError, ValueError):
    """A workload cannot be derived from a Darshan log, an IOR command line or a workload file."""


@dataclass
class Workload:
    """One application's I/O (paper 000, Section 2.2); sizes and byte counts in bytes.

    - ``processes``: all processes of the job; ``io_processes``: those that did I/O;
    - ``api``: the highest I/O interface used (POSIX, MPIIO, HDF5, PnetCDF, STDIO);
    - ``bytes_per_process``: bytes one I/O process reads plus writes in one iteration;
    - ``request_size``: the dominant bytes per read or write call;
    - ``bytes_read`` / ``bytes_written``: totals over the job, all iterations;
    - ``collective``: MPI-IO collective calls dominate; ``shared_file``: ranks share a file;
    - ``iterations``: I/O iterations (1 when the source cannot say);
    - ``modules``: instrumentation modules or libraries seen; ``notes``: facts about the
      source; ``warnings``: what makes the profile incomplete or uncertain.
    """

    processes: int
    io_processes: int
    api: str
    bytes_per_process: int
    request_size: int
    bytes_read: int = 0
    bytes_written: int = 0
    collective: bool = False
    shared_file: bool = True
    iterations: int = 1
    modules: list[str] = field(default_factory=list)
    source: str = ""
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.api not in APIS:
            raise ProfileError(f"api must be one of {', '.join(APIS)}, got {self.api!r}")
        for name in ("processes", "io_processes", "iterations"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ProfileError(f"{name} must be a positive integer, got {value!r}")
        for name in ("bytes_per_process", "request_size", "bytes_read", "bytes_written"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ProfileError(f"{name} must be a non-negative number of bytes, got {value!r}")
        if self.io_processes > self.processes:
            raise ProfileError(f"io_processes ({self.io_processes}) exceeds processes ({self.processes})")

    @property
    def operation(self) -> str:
        """IOR's operation for the read/write mix: write, read or readwrite."""
        if self.bytes_read and self.bytes_written:
            return "readwrite"
        return "read" if self.bytes_read else "write"

    def to_benchmark_spec(self) -> BenchmarkSpec:
        """The nearest IOR-like run: one block of ``bytes_per_process`` per segment, one segment per iteration.

        The block is rounded up to a whole number of requests, as IOR requires;
        only the I/O processes run; collective I/O needs MPI-IO.
        """
        api = BENCHMARK_API[self.api]
        transfer = max(1, self.request_size)
        blocks = max(1, -(-self.bytes_per_process // transfer))
        return BenchmarkSpec(api=api, processes=self.io_processes, block_size=blocks * transfer,
                             transfer_size=transfer, segment_count=self.iterations,
                             file_per_process=not self.shared_file, collective=self.collective and api == "MPIIO",
                             operation=self.operation)

    def to_dict(self) -> dict:
        """Plain, JSON-ready data, with the derived ``operation``."""
        return {**asdict(self), "operation": self.operation}

    @classmethod
    def from_dict(cls, data: dict, source: str = "<dict>") -> Workload:
        """A Workload from a mapping of its fields (``operation`` is derived and ignored); ProfileError if invalid."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known - {"operation"})
        if unknown:
            raise ProfileError(f"{source}: unknown workload field(s) {', '.join(unknown)}; "
                               f"known: {', '.join(sorted(known))}")
        values = {k: v for k, v in data.items() if k in known}
        try:
            return cls(**values)
        except TypeError as exc:
            raise ProfileError(f"{source}: {exc}") from None
