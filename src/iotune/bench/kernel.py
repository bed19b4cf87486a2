"""The IOR-semantics I/O kernel that runs inside every MPI rank.

One call of :func:`run_kernel` does one trial of a :class:`BenchmarkSpec` in a
scratch directory and returns this rank's raw timings; :func:`summarise` turns
the timings of all ranks into a Measurement dict the way IOR aggregates them.
Times are seconds from a barrier-aligned local origin, sizes are bytes.
"""

from __future__ import annotations

import mmap
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from iotune.records import BenchmarkSpec, Measurement, PhaseResult

PAGE = 4096
CACHE_MODES = ("auto", "drop_caches", "o_direct", "fadvise_dontneed", "page_cache")
DROP_CACHES = "/proc/sys/vm/drop_caches"
_PATTERN_KEY = np.uint64(0x9E3779B97F4A7C15)


def rank_file(scratch: Path, spec: BenchmarkSpec, rank: int) -> Path:
    """The file this rank accesses: ``testFile`` shared, ``testFile.%08d`` per process (IOR names)."""
    if spec.file_per_process:
        return scratch / f"testFile.{rank:08d}"
    return scratch / "testFile"


def transfer_offsets(spec: BenchmarkSpec, rank: int) -> list[int]:
    """File offsets in bytes of this rank's transfers, in IOR's sequential order."""
    per_block = spec.block_size // spec.transfer_size
    slot = 0 if spec.file_per_process else rank
    procs = 1 if spec.file_per_process else spec.processes
    return [
        (segment * procs + slot) * spec.block_size + k * spec.transfer_size
        for segment in range(spec.segment_count)
        for k in range(per_block)
    ]


def fill_pattern(buffer: np.ndarray, offset: int, rank_tag: int) -> None:
    """Fill a byte buffer with the verify pattern for file offset ``offset``.

    Each 8-byte word holds a mix of its own file offset and ``rank_tag`` (the
    rank for file per process, 0 for a shared file), so data written to the
    wrong place or the wrong file is detected.
    """
    words = (buffer.size + 7) // 8
    values = (np.arange(words, dtype=np.uint64) * np.uint64(8) + np.uint64(offset)) ^ _PATTERN_KEY
    values += np.uint64(rank_tag) << np.uint64(48)
    buffer[:] = values.view(np.uint8)[: buffer.size]


def stamp_pages(words: np.ndarray, offset: int) -> None:
    """Make every 4 KiB page of a transfer unique by writing its file offset into the page's first word.

    Writing one identical buffer again and again lets storage that deduplicates
    or compresses (thin-provisioned virtual disks) absorb the data without
    storing it, and the benchmark then measures that trick instead of the
    device; IOR stamps its buffers per transfer and fio scrambles them for the
    same reason (IOR's ``-l offset`` stamps every 4 KiB the same way).  The
    cost is one store per page.
    """
    words[:: PAGE // 8] = (np.arange(0, len(words) * 8, PAGE, dtype=np.uint64) + np.uint64(offset)) ^ _PATTERN_KEY


def aligned_buffer(nbytes: int) -> tuple[mmap.mmap, np.ndarray]:
    """A page-aligned anonymous buffer (needed for O_DIRECT) and a uint8 view of it."""
    region = mmap.mmap(-1, max(nbytes, 1))
    return region, np.frombuffer(region, dtype=np.uint8, count=nbytes)


def resolve_cache_mode(requested: str, spec: BenchmarkSpec, has_read: bool) -> str:
    """Pick how reads are kept from hitting the page cache.

    ``auto`` prefers dropping the caches (needs root), then O_DIRECT (POSIX
    only, transfer and block sizes multiples of 4096 bytes), then
    posix_fadvise(DONTNEED) after fsync.
    """
    if requested not in CACHE_MODES:
        raise ValueError(f"cache mode {requested!r} is not one of {', '.join(CACHE_MODES)}")
    if not has_read:
        return "none"
    direct_ok = (
        spec.api == "POSIX"
        and hasattr(os, "O_DIRECT")
        and spec.transfer_size % PAGE == 0
        and spec.block_size % PAGE == 0
    )
    if requested == "auto":
        if os.geteuid() == 0 and os.access(DROP_CACHES, os.W_OK):
            return "drop_caches"
        return "o_direct" if direct_ok else "fadvise_dontneed"
    if requested == "o_direct" and not direct_ok:
        return "fadvise_dontneed"
    return requested


class _Clock:
    """Seconds since a barrier-aligned origin, as IOR's timers."""

    def __init__(self, comm):
        comm.Barrier()
        self.t0 = time.perf_counter()

    def __call__(self) -> float:
        return time.perf_counter() - self.t0


def _pwrite_all(fd: int, view: memoryview, offset: int) -> None:
    while view:
        done = os.pwrite(fd, view, offset)
        view, offset = view[done:], offset + done


def _pread_all(fd: int, view: memoryview, offset: int) -> int:
    total = 0
    while total < len(view):
        done = os.preadv(fd, [view[total:]], offset + total)
        if done == 0:
            break
        total += done
    return total


class _Phase:
    """One rank's part of one write or read phase."""

    def __init__(self, comm, spec: BenchmarkSpec, scratch: Path, direct: bool):
        self.comm = comm
        self.spec = spec
        self.rank = comm.Get_rank()
        self.path = rank_file(scratch, spec, self.rank)
        self.offsets = transfer_offsets(spec, self.rank)
        self.direct = direct
        self.rank_tag = self.rank if spec.file_per_process else 0
        self.hints: dict[str, str] | None = None
        self.layout: dict[str, str] | None = None
        self.hdf5 = None
        if spec.api == "HDF5":
            from iotune.bench.hdf5 import Hdf5Phase

            self.hdf5 = Hdf5Phase(self, lambda part: transfer_offsets(part, self.rank))
        self._region, self.buffer = aligned_buffer(spec.transfer_size)
        if spec.verify:
            pass
        elif spec.data_pattern == "offset":
            # random (incompressible) contents; stamp_pages then makes every page unique
            self.buffer[:] = np.random.default_rng(self.rank).integers(0, 256, self.buffer.size, dtype=np.uint8)
        else:
            fill_pattern(self.buffer, 0, self.rank_tag)
        self._words = self.buffer[: spec.transfer_size // 8 * 8].view(np.uint64)
        self._expected = np.empty(spec.transfer_size, dtype=np.uint8) if spec.verify else None

    def close_buffers(self) -> None:
        del self.buffer, self._words  # the views of the mapping go first, or closing it raises BufferError
        try:
            self._region.close()
        except BufferError:
            pass  # a traceback still holds a view; the mapping goes when it is collected

    def run(self, phase: str, clock: Callable[[], float] | None) -> dict:
        clock = clock or (lambda: 0.0)
        if phase == "write" and self.spec.layout and (self.spec.file_per_process or self.rank == 0):
            # the layout goes on the empty file before anyone opens it (ENOTEMPTY once it holds data)
            from iotune.fslayout import apply_to_file

            self.layout = apply_to_file(self.path, self.spec.layout)
        self.comm.Barrier()
        record = {"phase": phase, "open_start": clock()}
        opener = {"POSIX": self._posix, "MPIIO": self._mpiio, "HDF5": self._hdf5}[self.spec.api]
        record.update(opener(phase, clock))
        return record

    def _check(self, offset: int) -> int:
        expected = self._expected
        assert expected is not None, "only a verifying phase checks what it read"
        fill_pattern(expected, offset, self.rank_tag)
        return int(not np.array_equal(self.buffer, expected))

    def _fill(self, offset: int) -> None:
        """The contents of the transfer written at ``offset``: the pattern a read checks, or unique pages."""
        if self.spec.verify:
            fill_pattern(self.buffer, offset, self.rank_tag)
        elif self.spec.data_pattern == "offset":
            stamp_pages(self._words, offset)

    def _timings(self, phase: str, open_end: float, transfer_end: float, close_end: float, moved: int,
                 errors: int) -> dict:
        return {
            "open_end": open_end,
            "transfer_end": transfer_end,
            "close_end": close_end,
            "bytes": moved,
            "ops": len(self.offsets),
            "verify_errors": errors if self.spec.verify and phase == "read" else None,
        }

    def _posix(self, phase: str, clock) -> dict:
        spec = self.spec
        if phase == "write":
            flags = os.O_WRONLY | os.O_CREAT
        else:
            flags = os.O_RDONLY | (os.O_DIRECT if self.direct else 0)
        fd = os.open(self.path, flags, 0o644)
        try:
            open_end = clock()
            view = self.buffer.data
            errors = 0
            moved = 0
            for offset in self.offsets:
                if phase == "write":
                    self._fill(offset)
                    _pwrite_all(fd, view, offset)
                    moved += spec.transfer_size
                else:
                    got = _pread_all(fd, view, offset)
                    moved += got
                    if spec.verify:
                        errors += 1 if got != spec.transfer_size else self._check(offset)
            transfer_end = clock()
            if phase == "write" and spec.fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        return self._timings(phase, open_end, transfer_end, clock(), moved, errors)

    def _info(self, phase: str):
        """The MPI_Info of this phase's open: the spec's hints, and its layout's where ROMIO reads them."""
        from mpi4py import MPI

        spec = self.spec
        info = MPI.Info.Create()
        hints = dict(spec.hints)
        if spec.layout and phase == "write":
            from iotune.fslayout import driver_for

            # ROMIO's striping hints where its driver for this file system reads them (Lustre); none for CephFS
            hints = {**driver_for(self.path.parent).mpi_hints(spec.layout), **hints}
        for key, value in hints.items():
            info.Set(str(key), str(value))
        return info

    def _hdf5(self, phase: str, clock) -> dict:
        assert self.hdf5 is not None, "an HDF5 phase has its HDF5 side"
        info = self._info(phase)
        try:
            timings = self.hdf5.run(phase, clock, info)
        finally:
            info.Free()
        if self.hints is None and self.hdf5.hints is not None:
            self.hints = self.hdf5.hints
        return timings

    def _mpiio(self, phase: str, clock) -> dict:
        from mpi4py import MPI

        spec = self.spec
        comm = MPI.COMM_SELF if spec.file_per_process else self.comm
        amode = MPI.MODE_WRONLY | MPI.MODE_CREATE if phase == "write" else MPI.MODE_RDONLY
        info = self._info(phase)
        try:
            fh = MPI.File.Open(comm, str(self.path), amode, info)
        finally:
            info.Free()
        try:
            open_end = clock()
            if self.hints is None:
                in_effect = fh.Get_info()
                self.hints = {key: (in_effect.Get(key) or "").strip() for key in in_effect.keys()}
                in_effect.Free()
            if phase == "write":
                call = fh.Write_at_all if spec.collective else fh.Write_at
            else:
                call = fh.Read_at_all if spec.collective else fh.Read_at
            errors = 0
            moved = 0
            status = MPI.Status()
            for offset in self.offsets:
                if phase == "write":
                    self._fill(offset)
                call(offset, [self.buffer, MPI.BYTE], status)
                got = status.Get_count(MPI.BYTE)
                moved += got
                if phase == "read" and spec.verify:
                    errors += 1 if got != spec.transfer_size else self._check(offset)
            transfer_end = clock()
            if phase == "write" and spec.fsync:
                fh.Sync()
        finally:
            fh.Close()
        return self._timings(phase, open_end, transfer_end, clock(), moved, errors)


def _evict(comm, node_comm, spec: BenchmarkSpec, scratch: Path, mode: str) -> str:
    """Between write and read: keep the read from being served by the page cache.

    Returns the mode actually used (dropping caches falls back to fadvise when
    the kernel refuses the write, e.g. in a container).
    """
    comm.Barrier()
    if mode == "drop_caches":
        ok = True
        if node_comm.Get_rank() == 0:
            try:
                os.sync()
                with open(DROP_CACHES, "w") as handle:
                    handle.write("3\n")
            except OSError:
                ok = False
        ok = comm.allreduce(ok, op=_land())
        if ok:
            comm.Barrier()
            return mode
        mode = "fadvise_dontneed"
    if mode == "fadvise_dontneed":
        rank = comm.Get_rank()
        if spec.file_per_process or rank == 0:
            fd = os.open(rank_file(scratch, spec, rank), os.O_RDONLY)
            try:
                # DONTNEED skips dirty pages, so the data must be on disk first.
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
    comm.Barrier()
    return mode


def _land():
    from mpi4py import MPI

    return MPI.LAND


def run_kernel(comm, node_comm, spec: BenchmarkSpec, scratch: Path, cache_mode: str = "auto") -> dict:
    """Run one trial on this rank; every rank of ``comm`` must call it.

    ``node_comm`` groups the ranks of one node (one of them drops that node's
    caches).  Returns this rank's record: per-phase open start, open end,
    transfer end and close end (seconds from a barrier-aligned origin), bytes,
    ops, verify errors, the hints in effect (rank 0) and the cache mode used.
    Files are created only in ``scratch`` and removed before returning, also
    when an error is raised.
    """
    has_read = spec.operation in ("read", "readwrite")
    timed = {"write": ["write"], "read": ["read"], "readwrite": ["write", "read"]}[spec.operation]
    mode = comm.bcast(resolve_cache_mode(cache_mode, spec, has_read) if comm.Get_rank() == 0 else None)
    worker = _Phase(comm, spec, scratch, direct=(mode == "o_direct"))
    records = []
    try:
        if spec.operation == "read":
            worker.run("write", None)
        elif "write" in timed:
            records.append(worker.run("write", _Clock(comm)))
        if has_read:
            mode = _evict(comm, node_comm, spec, scratch, mode)
            records.append(worker.run("read", _Clock(comm)))
    except BaseException:
        # No collective here: the other ranks may be elsewhere, and the runner removes the directory.
        if spec.file_per_process:
            _remove_file(rank_file(scratch, spec, comm.Get_rank()))
        raise
    finally:
        worker.close_buffers()
    # A rank may still be about to open the shared file that rank 0 would delete.
    comm.Barrier()
    inode = None
    if spec.file_per_process or comm.Get_rank() == 0:
        if worker.layout is not None:
            # read back from the file written: an open that truncates or recreates it (HDF5's) could reset it
            from iotune.fslayout import driver_for

            worker.layout = driver_for(scratch).read(worker.path)
            # CephFS names a file's objects after its inode number (hex), so it tells where the objects landed
            inode = os.stat(worker.path).st_ino
        _remove_file(rank_file(scratch, spec, comm.Get_rank()))
    return {
        "rank": comm.Get_rank(),
        "phases": records,
        "hints": worker.hints if comm.Get_rank() == 0 else None,
        "layout": worker.layout,
        "inode": inode,
        "hdf5": worker.hdf5.in_effect if worker.hdf5 else None,
        "cache_mode": mode,
    }


def _remove_file(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def summarise(spec: BenchmarkSpec, records: list[dict]) -> dict:
    """Aggregate all ranks' records as IOR does and return a Measurement dict.

    Phase seconds = latest close end - earliest open start; each sub-phase time
    is the span from its earliest start to its latest end over ranks (IOR's
    openTime, wrRdTime, closeTime); bytes and ops are sums over ranks.
    """
    phases = []
    for index, first in enumerate(records[0]["phases"]):
        per_rank = [record["phases"][index] for record in records]

        errors = [r["verify_errors"] for r in per_rank if r["verify_errors"] is not None]
        phases.append(
            PhaseResult(
                phase=first["phase"],
                bytes=sum(r["bytes"] for r in per_rank),
                seconds=_span(per_rank, "open_start", "close_end"),
                open_seconds=_span(per_rank, "open_start", "open_end"),
                transfer_seconds=_span(per_rank, "open_end", "transfer_end"),
                close_seconds=_span(per_rank, "transfer_end", "close_end"),
                ops=sum(r["ops"] for r in per_rank),
                verify_errors=sum(errors) if errors else None,
            )
        )
    return Measurement(
        status="COMPLETE",
        phases=phases,
        hints_requested=dict(spec.hints),
        hints_in_effect={**(records[0]["hints"] or {}), **_hdf5_read_back(records[0])},
        read_cache_mode=records[0]["cache_mode"],
        extra={**_layout_extra(spec, records), **_hdf5_extra(spec, records)},
    ).to_dict()


def _span(per_rank: list[dict], start: str, end: str) -> float:
    """From the earliest ``start`` to the latest ``end`` over the ranks' records of one phase."""
    return max(r[end] for r in per_rank) - min(r[start] for r in per_rank)


def _layout_extra(spec: BenchmarkSpec, records: list[dict]) -> dict:
    """The layout requested and the one in effect (rank 0's file; with a file per process, every rank's)."""
    if not spec.layout:
        return {}
    in_effect = records[0].get("layout") or {}
    extra = {"layout_requested": dict(spec.layout), "layout_in_effect": in_effect,
             "file_inodes": [r.get("inode") for r in records] if spec.file_per_process else [records[0].get("inode")]}
    if spec.file_per_process:
        extra["layout_in_effect_per_rank"] = [r.get("layout") or {} for r in records]
    return extra


def _hdf5_extra(spec: BenchmarkSpec, records: list[dict]) -> dict:
    """The HDF5 settings asked (HDF5's defaults for those not given) and read back from rank 0's file (with a file
    per process, every rank's)."""
    if spec.api != "HDF5":
        return {}
    from iotune.spec.hdf5 import as_asked

    extra = {"hdf5_requested": as_asked(spec.hdf5, spec.transfer_size), "hdf5_in_effect": records[0].get("hdf5") or {}}
    if spec.file_per_process:
        extra["hdf5_in_effect_per_rank"] = [r.get("hdf5") or {} for r in records]
    return extra


def _hdf5_read_back(record: dict) -> dict[str, str]:
    """Rank 0's HDF5 settings as read back, under the keys that record them beside the hints (``hdf5.<name>``)."""
    from iotune.spec.hdf5 import setting_key

    return {setting_key(name): value for name, value in (record.get("hdf5") or {}).items()}
