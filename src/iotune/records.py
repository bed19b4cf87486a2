"""Records every layer shares: what a runner is asked to do (BenchmarkSpec) and what it reports (Measurement).

Units: sizes and byte counts in bytes, times in seconds, bandwidth in MiB/s
(2**20 bytes per second, as IOR reports it).

A trial's **I/O time** is the sum of its timed phases' seconds (write and/or
read): the time the workload spends in I/O; its bandwidth is the bytes those
phases moved over that time.  :func:`io_seconds` and :func:`io_bandwidth` are
the one definition; everything else calls them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Literal, get_args

from iotune.units import MIB

API = Literal["POSIX", "MPIIO", "HDF5"]
APIS: tuple[str, ...] = get_args(API)
"""The I/O interfaces a benchmark run goes through (IOR's ``-a``): the one list every module imports."""
APIS_TEXT = " or ".join(APIS)
OPERATIONS = ("write", "read", "readwrite")
DATA_PATTERNS = ("offset", "timestamp")
# IOR's own data packet types that iotune cannot write: they label runs imported from IOR (see BenchmarkSpec).
IOR_DATA_PATTERNS = ("ior_offset", "ior_incompressible")
# How a read phase met the page cache: kept from it (drop_caches, o_direct, fadvise_dontneed), read from it
# (page_cache), read by another node than the writer's (other_node, IOR -C across nodes), not known
# (unknown, e.g. an imported IOR read of an existing file), or no read at all (none).
READ_CACHE_MODES = ("drop_caches", "o_direct", "fadvise_dontneed", "page_cache", "other_node", "unknown", "none")


@dataclass(frozen=True)
class BenchmarkSpec:
    """One run of an IOR-like benchmark, with IOR's meaning for every field.

    Layout as IOR's: with a shared file, rank r's block i of segment s starts at
    offset (s * processes + r) * block_size; with a file per process each rank
    writes segment_count * block_size bytes to its own file.  ``operation`` is
    "write", "read" (the file is first written untimed) or "readwrite" (IOR -w -r).
    ``data_pattern`` names what is written: "offset" (random, incompressible
    bytes in which every 4 KiB page of every transfer carries its file offset,
    so storage that compresses or deduplicates cannot absorb the writes; zlib
    ratio 1.0; IOR 4's ``-l random`` writes data of the same kind) or
    "timestamp" (one patterned buffer written again and again; IOR's default).
    Runs imported from IOR may carry IOR's other kinds of data, which iotune
    does not write: "ior_offset" (IOR 4's ``-l offset``: a counting sequence
    with every 4 KiB page stamped, every transfer different, zlib ratio about
    5; IOR 3 with storeFileOffset writes the same kind) and
    "ior_incompressible" (IOR's ``-l incompressible``: in IOR 4 one 8-byte
    word repeated with stamped pages, zlib ratio in the hundreds; in IOR 3 one
    random buffer written again and again).
    ``layout`` is the file layout (``stripe_count``, ``stripe_unit``,
    ``object_size``, ``pool``) set on each benchmark file, empty, before it is
    written (:mod:`iotune.fslayout`); empty leaves the file system's default.
    ``hdf5`` holds the HDF5 layer's settings of ``api: HDF5`` (:mod:`iotune.spec.hdf5`); empty leaves
    HDF5's defaults.
    """

    api: API = "MPIIO"
    processes: int = 2
    block_size: int = 1 * MIB
    transfer_size: int = 256 * 1024
    segment_count: int = 1
    file_per_process: bool = False
    collective: bool = False
    operation: str = "readwrite"
    fsync: bool = True
    verify: bool = False
    data_pattern: str = "offset"
    hints: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    layout: dict[str, str] = field(default_factory=dict)
    hdf5: dict[str, str] = field(default_factory=dict)

    def problem(self) -> str | None:
        """Why this run cannot be made, in one line (IOR's own rules), or None when it can."""
        if self.api not in APIS:
            return f"api must be {APIS_TEXT}, got {self.api!r}"
        if self.operation not in OPERATIONS:
            return f"operation must be one of {', '.join(OPERATIONS)}, got {self.operation!r}"
        if self.data_pattern in IOR_DATA_PATTERNS:
            return (f"data_pattern {self.data_pattern!r} is IOR's own (imported runs); "
                    f"iotune writes {' or '.join(DATA_PATTERNS)}")
        if self.data_pattern not in DATA_PATTERNS:
            return f"data_pattern must be one of {', '.join(DATA_PATTERNS)}, got {self.data_pattern!r}"
        if self.processes < 1 or self.segment_count < 1:
            return f"processes and segment_count must be >= 1, got {self.processes} and {self.segment_count}"
        if self.hdf5 and self.api != "HDF5":
            return f"HDF5 settings ({', '.join(sorted(self.hdf5))}) need api HDF5, got {self.api}"
        if self.transfer_size < 1 or self.block_size < self.transfer_size or self.block_size % self.transfer_size:
            return (f"block_size ({self.block_size} B) must be a positive multiple of transfer_size "
                    f"({self.transfer_size} B), as IOR requires")
        return None

    @property
    def bytes_per_process(self) -> int:
        return self.block_size * self.segment_count

    @property
    def aggregate_bytes(self) -> int:
        return self.bytes_per_process * self.processes

    @property
    def transfers_per_process(self) -> int:
        return self.bytes_per_process // self.transfer_size

    def to_dict(self) -> dict:
        out = asdict(self)
        for optional in ("layout", "hdf5"):
            if not out[optional]:
                del out[optional]  # specs without one keep the keys (and digests) they had before it existed
        return out

    @classmethod
    def from_dict(cls, data: dict) -> BenchmarkSpec:
        return cls(**data)


@dataclass
class PhaseResult:
    """One timed phase (write or read) of one repeat, aggregated over all ranks as IOR does.

    ``seconds`` is latest close end minus earliest open start over all ranks;
    ``open_seconds``, ``transfer_seconds`` and ``close_seconds`` are the same
    span for each sub-phase (IOR's openTime, wrRdTime, closeTime).

    Where fsync goes (the one definition, for every runner and import):
    ``seconds`` includes the fsync of a write phase when the spec asks for it;
    ``transfer_seconds`` never does, ``close_seconds`` does (fsync, then
    close).  IOR times its fsync (``-e``) inside wrRdTime, which cannot be
    split, so an IOR write phase with fsync has ``transfer_seconds`` and
    ``close_seconds`` None (IOR's own figures stay in the Measurement's
    ``extra["ior"]``).
    """

    phase: str
    bytes: int
    seconds: float
    open_seconds: float | None
    transfer_seconds: float | None
    close_seconds: float | None
    ops: int | None
    verify_errors: int | None = None

    @property
    def bandwidth_mib(self) -> float:
        return self.bytes / MIB / self.seconds if self.seconds > 0 else float("inf")

    def to_dict(self) -> dict:
        out = asdict(self)
        out["bandwidth_mib"] = self.bandwidth_mib
        return out

    @classmethod
    def from_dict(cls, data: dict) -> PhaseResult:
        data = {k: v for k, v in data.items() if k != "bandwidth_mib"}
        return cls(**data)


@dataclass
class Measurement:
    """The outcome of one trial.  A failed trial is a Measurement with status FAILED, never an exception."""

    status: Literal["COMPLETE", "FAILED"]
    phases: list[PhaseResult] = field(default_factory=list)
    error: str | None = None
    hints_requested: dict[str, str] = field(default_factory=dict)
    hints_in_effect: dict[str, str] = field(default_factory=dict)
    read_cache_mode: str = "none"
    runner: str = "builtin"
    command: str = ""
    wall_seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    @classmethod
    def failed(cls, error: str, **kwargs) -> Measurement:
        return cls(status="FAILED", error=error, **kwargs)

    @property
    def io_seconds(self) -> float:
        """I/O time in seconds: the sum of the phases' seconds (see the module docstring)."""
        return io_seconds(self.phases)

    def phase(self, name: str) -> PhaseResult | None:
        for result in self.phases:
            if result.phase == name:
                return result
        return None

    def to_dict(self) -> dict:
        out = asdict(self)
        out["phases"] = [p.to_dict() for p in self.phases]
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Measurement:
        data = dict(data)
        data["phases"] = [PhaseResult.from_dict(p) for p in data.get("phases", [])]
        return cls(**data)


def io_seconds(phases: Iterable[PhaseResult], phase: str | None = None) -> float:
    """A trial's I/O time in seconds: the sum of its phases' seconds (only phase ``phase`` when given)."""
    return float(sum(p.seconds for p in phases if phase is None or p.phase == phase))


def io_bytes(phases: Iterable[PhaseResult], phase: str | None = None) -> int:
    """Bytes moved by a trial's phases (only phase ``phase`` when given)."""
    return int(sum(p.bytes for p in phases if phase is None or p.phase == phase))


def io_bandwidth(phases: Iterable[PhaseResult], phase: str | None = None) -> float:
    """A trial's bandwidth in MiB/s: its bytes over its I/O time (inf for a zero time)."""
    phases = list(phases)
    seconds = io_seconds(phases, phase)
    return io_bytes(phases, phase) / MIB / seconds if seconds > 0 else float("inf")
