"""Write the small synthetic Darshan logs of ``tests/profile/fixtures/gen-*.darshan``.

Run ``python tests/profile/make_logs.py`` (from the repository, with the ``darshan``
wheel installed) to regenerate them; the output is deterministic (fixed record
ids, times and counters; zlib is deterministic), so a rerun rewrites identical
files.  The generated logs cover what none of the real fixture logs shows:
DFS and DAOS data, a shared file whose records were not reduced to rank -1,
STDIO carrying most bytes, console-only, import-only, tiny and many-file
workloads, a shared record some ranks moved nothing to, a DXT-only partial
flag, a format 3.21 module table, a log whose module data cannot be
decompressed, and HDF5 over POSIX from Python (h5py without MPI-IO, whose
bytes are mostly the interpreter reading h5py's compiled modules).

Format 3.41 logs are written by darshan-util itself (``libdarshan-util.so``
of the ``darshan`` wheel, through cffi): ``darshan_log_create``,
``darshan_log_put_job``, ``_put_exe``, ``_put_mounts``, ``_put_namehash``,
``_put_mod`` and ``darshan_log_close``, as darshan-logutils.h declares them.
That library only writes its own format (3.41), so the one format 3.21 log is
written byte by byte here, in the layout of darshan 3.2-3.4's
darshan-log-format.h (a 360-byte header with 16 module slots, then one zlib
stream per region), and read back by pydarshan like any other log.

Record layouts (counter names and struct sizes) come from pydarshan's own
declarations (``darshan.backend.cffi_backend``), so a record is the library's
``struct darshan_<module>_file``: ``uint64 id, int64 rank, int64
counters[N], double fcounters[M]`` (plus trailing bytes for DFS and DAOS).
"""

from __future__ import annotations

import hashlib
import struct
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30

# Module ids of format 3.41 (darshan-log-format.h, pydarshan's backend._mod_names) and 3.21.
MODULE_ID_341 = {"POSIX": 1, "MPI-IO": 2, "H5F": 3, "H5D": 4, "PNETCDF_FILE": 5, "PNETCDF_VAR": 6, "LUSTRE": 8,
                 "STDIO": 9, "DXT_POSIX": 10, "DXT_MPIIO": 11, "HEATMAP": 15, "DFS": 16, "DAOS": 17}
MODULE_ID_321 = {"POSIX": 1, "MPI-IO": 2, "H5F": 3, "H5D": 4, "PNETCDF": 5, "LUSTRE": 7, "STDIO": 8,
                 "DXT_POSIX": 9, "DXT_MPIIO": 10, "HEATMAP": 14}
# Record format versions darshan-util 3.5.0 reads without translation (DARSHAN_<MOD>_VER).
MODULE_VERSION = {"POSIX": 4, "MPI-IO": 3, "STDIO": 2, "DFS": 1, "DAOS": 1, "H5F": 3, "H5D": 2}
MAGIC = 6567223
START = 1_700_000_000  # job start time (s since the epoch); every job runs 60 s


def record_id(name: str) -> int:
    """A fixed 64-bit record id for a file name (darshan hashes the name too, with another hash)."""
    return int.from_bytes(hashlib.sha1(name.encode()).digest()[:8], "little")


@dataclass
class Record:
    """One module record: the file it names, the rank (-1: reduced shared record) and non-zero counters."""

    module: str
    name: str
    rank: int
    counters: dict[str, int] = field(default_factory=dict)
    fcounters: dict[str, float] = field(default_factory=dict)
    file: str | None = None  # H5D only: the name of the file the dataset is in (its record id follows the rank)


@dataclass
class Log:
    """What one generated log holds."""

    nprocs: int
    exe: str
    records: list[Record]
    partial: tuple[str, ...] = ()
    mounts: tuple[tuple[str, str], ...] = (("lustre", "/scratch"), ("ext4", "/"))
    metadata: str = "generator=iotune tests/profile/make_logs.py"


def _layout(module: str) -> tuple[list[str], list[str], int]:
    from darshan.backend.cffi_backend import counter_names, fcounter_names, ffi

    struct_name = {"POSIX": "posix_file", "MPI-IO": "mpiio_file", "STDIO": "stdio_file", "DFS": "dfs_file",
                   "DAOS": "daos_object", "H5F": "hdf5_file", "H5D": "hdf5_dataset"}[module]
    return counter_names(module), fcounter_names(module), ffi.sizeof(f"struct darshan_{struct_name}")


def pack_record(record: Record) -> bytes:
    """The bytes of one record, in the library's struct layout (little-endian, as on x86-64)."""
    names, fnames, size = _layout(record.module)
    unknown = (set(record.counters) - set(names)) | (set(record.fcounters) - set(fnames))
    if unknown:
        raise ValueError(f"{record.module} has no counter(s) {sorted(unknown)}")
    data = struct.pack("<Qq", record_id(record.name), record.rank)
    if record.module == "H5D":
        data += struct.pack("<Q", record_id(record.file))
    data += struct.pack(f"<{len(names)}q", *(record.counters.get(n, 0) for n in names))
    data += struct.pack(f"<{len(fnames)}d", *(record.fcounters.get(n, 0.0) for n in fnames))
    return data + bytes(size - len(data))


def _by_module(log: Log, ids: dict[str, int]) -> list[tuple[int, str, bytes]]:
    modules = sorted({r.module for r in log.records}, key=ids.__getitem__)
    return [(ids[m], m, b"".join(pack_record(r) for r in log.records if r.module == m)) for m in modules]


def _names(log: Log) -> list[str]:
    return sorted({r.name for r in log.records})


def _mount_text(log: Log) -> bytes:
    return b"".join(f"\n{kind}\t{path}".encode() for kind, path in reversed(log.mounts)) + b"\0"


def write_341(log: Log, path: Path) -> None:
    """Write ``log`` in format 3.41 with darshan-util's own log-writing functions."""
    import cffi
    from darshan.discover_darshan import find_utils

    ffi = cffi.FFI()
    ffi.cdef("""
        struct darshan_job { int64_t uid; int64_t start_time_sec; int64_t start_time_nsec; int64_t end_time_sec;
                             int64_t end_time_nsec; int64_t nprocs; int64_t jobid; char metadata[1024]; };
        struct darshan_mnt_info { char mnt_type[3015]; char mnt_path[3015]; };
        struct darshan_name_record { uint64_t id; char name[]; };
        struct ut_hash_handle { void *tbl; void *prev; void *next; void *hh_prev; void *hh_next; void *key;
                                unsigned keylen; unsigned hashv; };
        struct darshan_name_record_ref { struct darshan_name_record *name_record; struct ut_hash_handle hlink; };
        void *darshan_log_create(const char *name, int comp_type, int64_t partial_flag);
        int darshan_log_put_job(void *fd, struct darshan_job *job);
        int darshan_log_put_exe(void *fd, char *buf);
        int darshan_log_put_mounts(void *fd, struct darshan_mnt_info *mnt_data_array, int count);
        int darshan_log_put_namehash(void *fd, struct darshan_name_record_ref *hash);
        int darshan_log_put_mod(void *fd, int mod_id, void *mod_buf, int mod_buf_sz, int ver);
        void darshan_log_close(void *fd);
    """)
    lib = find_utils(ffi, None)
    path.unlink(missing_ok=True)
    partial = sum(1 << MODULE_ID_341[m] for m in log.partial)
    fd = lib.darshan_log_create(str(path).encode(), 0, partial)  # 0: DARSHAN_ZLIB_COMP
    if fd == ffi.NULL:
        raise RuntimeError(f"darshan_log_create failed for {path}")
    job = ffi.new("struct darshan_job *", {"uid": 1000, "start_time_sec": START, "end_time_sec": START + 60,
                                           "nprocs": log.nprocs, "jobid": 4242})
    job.metadata = log.metadata.encode()
    checks = [lib.darshan_log_put_job(fd, job), lib.darshan_log_put_exe(fd, ffi.new("char[]", log.exe.encode()))]
    mounts = ffi.new("struct darshan_mnt_info[]", len(log.mounts))
    for slot, (kind, mount) in zip(mounts, log.mounts):
        slot.mnt_type, slot.mnt_path = kind.encode(), mount.encode()
    checks.append(lib.darshan_log_put_mounts(fd, mounts, len(log.mounts)))
    # put_namehash walks a uthash table with HASH_ITER, which follows hlink.next only: a linked list will do.
    keep = []
    refs = ffi.new("struct darshan_name_record_ref[]", max(1, len(_names(log))))
    for i, name in enumerate(_names(log)):
        raw = ffi.new("char[]", struct.pack("<Q", record_id(name)) + name.encode() + b"\0")
        keep.append(raw)
        refs[i].name_record = ffi.cast("struct darshan_name_record *", raw)
        refs[i].hlink.next = refs + i + 1 if i + 1 < len(_names(log)) else ffi.NULL
    checks.append(lib.darshan_log_put_namehash(fd, refs if _names(log) else ffi.NULL))
    for mod_id, module, data in _by_module(log, MODULE_ID_341):
        buf = ffi.from_buffer(data)
        checks.append(lib.darshan_log_put_mod(fd, mod_id, buf, len(data), MODULE_VERSION[module]))
    lib.darshan_log_close(fd)
    if any(c < 0 for c in checks) or not path.exists():
        raise RuntimeError(f"darshan-util failed to write {path}")


def write_321(log: Log, path: Path) -> None:
    """Write ``log`` in format 3.21 (darshan 3.2-3.4), byte by byte.

    Header (darshan-log-format.h of 3.21): ``char version[8]``, ``int64 magic``,
    ``uint8 comp_type`` (0: zlib), 3 bytes padding, ``uint32 partial_flag``,
    the name map and 16 module maps (``uint64 off, len``), ``uint32
    mod_ver[16]``: 360 bytes.  Then the job region (``struct darshan_job`` of
    3.21: ``int64 uid, start_time, end_time, nprocs, jobid; char
    metadata[1024]``, the exe line and the mount table), the name records
    (``uint64 id`` then the NUL-terminated name) and each module's records,
    one zlib stream per region.
    """
    metadata = log.metadata.encode() + b"\n"
    job = struct.pack("<5q", 1000, START, START + 60, log.nprocs, 4242) + metadata + bytes(1024 - len(metadata))
    regions = [zlib.compress(job + log.exe.encode() + _mount_text(log))]
    regions.append(zlib.compress(b"".join(struct.pack("<Q", record_id(n)) + n.encode() + b"\0" for n in _names(log))))
    modules = _by_module(log, MODULE_ID_321)
    regions += [zlib.compress(data) for _, _, data in modules]
    offset, maps = 360, []
    for region in regions:
        maps.append((offset, len(region)))
        offset += len(region)
    mod_map, mod_ver = [(0, 0)] * 16, [0] * 16
    for (mod_id, module, _), region_map in zip(modules, maps[2:]):
        mod_map[mod_id], mod_ver[mod_id] = region_map, MODULE_VERSION[module]
    partial = sum(1 << MODULE_ID_321[m] for m in log.partial)
    header = struct.pack("<8sqB3xI", b"3.21", MAGIC, 0, partial) + struct.pack("<2Q", *maps[1])
    header += b"".join(struct.pack("<2Q", *m) for m in mod_map) + struct.pack("<16I", *mod_ver)
    assert len(header) == 360
    path.unlink(missing_ok=True)
    path.write_bytes(header + b"".join(regions))


# ---------------------------------------------------------------- the logs

def _posix(name: str, rank: int, *, written: int = 0, read: int = 0, request: int = MIB, **extra) -> Record:
    """A POSIX record of ``written``/``read`` bytes in ``request``-byte calls (all in one histogram bin)."""
    counters = {"POSIX_OPENS": 1, "POSIX_WRITES": -(-written // request), "POSIX_READS": -(-read // request),
                "POSIX_BYTES_WRITTEN": written, "POSIX_BYTES_READ": read,
                "POSIX_ACCESS1_ACCESS": request,
                "POSIX_ACCESS1_COUNT": -(-written // request) + -(-read // request)}
    counters.update(extra)
    return Record("POSIX", name, rank, {k: v for k, v in counters.items() if v})


def _mpiio(name: str, rank: int, *, written: int = 0, read: int = 0, request: int = MIB, collective: bool = True,
           **extra) -> Record:
    kind = "COLL" if collective else "INDEP"
    counters = {f"MPIIO_{kind}_OPENS": 1, f"MPIIO_{kind}_WRITES": -(-written // request),
                f"MPIIO_{kind}_READS": -(-read // request), "MPIIO_BYTES_WRITTEN": written,
                "MPIIO_BYTES_READ": read, "MPIIO_ACCESS1_ACCESS": request,
                "MPIIO_ACCESS1_COUNT": -(-written // request) + -(-read // request)}
    counters.update(extra)
    return Record("MPI-IO", name, rank, {k: v for k, v in counters.items() if v})


def _stdio(name: str, rank: int, *, written: int = 0, read: int = 0, calls: int = 1) -> Record:
    counters = {"STDIO_OPENS": 1, "STDIO_WRITES": calls if written else 0, "STDIO_READS": calls if read else 0,
                "STDIO_BYTES_WRITTEN": written, "STDIO_BYTES_READ": read}
    return Record("STDIO", name, rank, {k: v for k, v in counters.items() if v})


def _shared(per_rank: list[int]) -> dict:
    """Reduced-record rank statistics of per-rank byte counts: fastest/slowest rank (by time) and byte variance.

    Darshan stores the population variance of the ranks' bytes
    (``*_F_VARIANCE_RANK_BYTES``); here the fastest rank is the one that
    moved the fewest bytes and the slowest the one that moved the most.
    """
    mean = sum(per_rank) / len(per_rank)
    variance = sum(x * x for x in per_rank) / len(per_rank) - mean * mean
    fastest = min(range(len(per_rank)), key=per_rank.__getitem__)
    slowest = max(range(len(per_rank)), key=per_rank.__getitem__)
    return {"ints": {"FASTEST_RANK": fastest, "FASTEST_RANK_BYTES": per_rank[fastest], "SLOWEST_RANK": slowest,
                     "SLOWEST_RANK_BYTES": per_rank[slowest]},
            "variance": variance}


def _reduced_posix(name: str, per_rank_written: list[int], request: int = MIB) -> Record:
    stats = _shared(per_rank_written)
    record = _posix(name, -1, written=sum(per_rank_written), request=request,
                    **{f"POSIX_{k}": v for k, v in stats["ints"].items()})
    record.counters["POSIX_OPENS"] = len(per_rank_written)
    record.fcounters["POSIX_F_VARIANCE_RANK_BYTES"] = stats["variance"]
    return record


def dfs_ior() -> Log:
    """IOR on DFS, 4 ranks: a shared file of 4 x 64 MiB written and read in 1 MiB calls; stdout via STDIO."""
    counters = {"DFS_OPENS": 4, "DFS_WRITES": 256, "DFS_READS": 256, "DFS_BYTES_WRITTEN": 256 * MIB,
                "DFS_BYTES_READ": 256 * MIB, "DFS_ACCESS1_ACCESS": MIB, "DFS_ACCESS1_COUNT": 512,
                "DFS_SIZE_WRITE_1M_4M": 256, "DFS_SIZE_READ_1M_4M": 256, "DFS_CHUNK_SIZE": MIB,
                "DFS_FASTEST_RANK": 2, "DFS_FASTEST_RANK_BYTES": 128 * MIB, "DFS_SLOWEST_RANK": 0,
                "DFS_SLOWEST_RANK_BYTES": 128 * MIB}
    return Log(4, "/opt/ior/bin/ior -a DFS --dfs.pool=tank --dfs.cont=ior -w -r -t 1m -b 64m -o /testFile",
               [Record("DFS", "/testFile", -1, counters), _stdio("<STDOUT>", 0, written=2 * KIB, calls=40)])


def daos_arrays() -> Log:
    """Two ranks, each writing 8 MiB to its own DAOS array object in 1 MiB calls."""
    records = [Record("DAOS", f"daos://tank/arrays/obj{rank}", rank,
                      {"DAOS_ARRAY_OPENS": 1, "DAOS_ARRAY_WRITES": 8, "DAOS_BYTES_WRITTEN": 8 * MIB,
                       "DAOS_ACCESS1_ACCESS": MIB, "DAOS_ACCESS1_COUNT": 8, "DAOS_SIZE_WRITE_1M_4M": 8})
               for rank in range(2)]
    return Log(2, "./daos_array_bench -n 8 -s 1m", records)


def shared_unreduced() -> Log:
    """One file opened by all 32 ranks, shared-record reduction off: 32 records, 4 MiB each, collective MPI-IO."""
    records = []
    for rank in range(32):
        records.append(_posix("/scratch/app/out.dat", rank, written=4 * MIB))
        records.append(_mpiio("/scratch/app/out.dat", rank, written=4 * MIB))
    return Log(32, "/scratch/app/bin/solver --checkpoint out.dat", records,
               metadata="generator=iotune tests/profile/make_logs.py\nDARSHAN_DISABLE_SHARED_REDUCTION=1")


def stdio_dominant() -> Log:
    """8 ranks: 16 MiB through MPI-IO (over POSIX) to a shared file, and 2 GiB each via fwrite to own text files."""
    records = [_reduced_posix("/scratch/run/fields.h5", [2 * MIB] * 8),
               _mpiio("/scratch/run/fields.h5", -1, written=16 * MIB)]
    records += [_stdio(f"/scratch/run/trace.{rank}.txt", rank, written=2 * GIB, calls=2 * GIB // (8 * KIB))
                for rank in range(8)]
    return Log(8, "/scratch/run/bin/sim --trace", records)


def console_only() -> Log:
    """One process that only prints: 40 KiB to stdout, 1 KiB to stderr."""
    return Log(1, "python3 report.py", [_stdio("<STDOUT>", 0, written=40 * KIB, calls=500),
                                        _stdio("<STDERR>", 0, written=KIB, calls=10)])


def import_only() -> Log:
    """One Python process whose only file I/O is importing modules (.py, .pyc, .so under site-packages)."""
    base = "/home/user/venv/lib/python3.11/site-packages"
    files = [f"{base}/numpy/__init__.py", f"{base}/numpy/__pycache__/__init__.cpython-311.pyc",
             f"{base}/numpy/core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so", f"{base}/yaml/__init__.py"]
    return Log(1, "python3 -c import numpy, yaml",
               [_posix(name, 0, read=(i + 1) * 24 * KIB, request=4 * KIB) for i, name in enumerate(files)])


def tiny() -> Log:
    """Two ranks, each writing 256 KiB to its own file in 64 KiB calls (0.5 MiB in all)."""
    return Log(2, "./writer 256k", [_posix(f"/scratch/t/out.{rank}", rank, written=256 * KIB, request=64 * KIB)
                                    for rank in range(2)])


def many_files() -> Log:
    """Four ranks, each writing 50 files of 4 MiB in 1 MiB calls (200 files)."""
    return Log(4, "./dump --files-per-rank 50",
               [_posix(f"/scratch/dump/r{rank}/f{i:03d}.bin", rank, written=4 * MIB)
                for rank in range(4) for i in range(50)])


def shared_some_idle() -> Log:
    """8 ranks open one shared file (reduced to rank -1); ranks 0-3 write 16 MiB each, ranks 4-7 nothing."""
    return Log(8, "./halfwriter", [_reduced_posix("/scratch/h/shared.dat", [16 * MIB] * 4 + [0] * 4)])


def dxt_partial() -> Log:
    """Two ranks write 32 MiB each to their own file, counters complete; only the DXT_POSIX trace ran out of memory."""
    return Log(2, "./writer 32m", [_posix(f"/scratch/d/out.{rank}", rank, written=32 * MIB) for rank in range(2)],
               partial=("DXT_POSIX",))


def h5py_posix() -> Log:
    """Two ranks of a Python program, each writing its own HDF5 file with h5py (no MPI-IO driver): 1000 one-byte
    dataset writes; HDF5 writes them and its metadata with POSIX.  Both ranks read h5py's compiled modules and
    its bundled libhdf5 (2.6 MB, reduced to rank -1 records): 99.5% of the POSIX bytes are the interpreter's."""
    venv = "/home/user/venv/lib/python3.11/site-packages"
    records = [_reduced_posix(f"{venv}/h5py/_objects.cpython-311-x86_64-linux-gnu.so", [650 * KIB] * 2, request=96),
               _reduced_posix(f"{venv}/h5py.libs/libhdf5-1f5e6b8a.so.310.4.0", [620 * KIB] * 2, request=96),
               _reduced_posix(f"{venv}/h5py/__pycache__/__init__.cpython-311.pyc", [12 * KIB] * 2, request=96)]
    for record in records:  # read, not written: move the byte counts over
        counters = record.counters
        counters["POSIX_BYTES_READ"], counters["POSIX_READS"] = counters.pop("POSIX_BYTES_WRITTEN"), \
            counters.pop("POSIX_WRITES")
    for rank in range(2):
        name = f"/scratch/h5/out.{rank}.h5"
        records.append(_posix(name, rank, written=6 * KIB, request=512))
        records.append(Record("H5F", name, rank, {"H5F_OPENS": 1}))
        records.append(Record("H5D", f"{name}:/x", rank,
                              {"H5D_OPENS": 1, "H5D_WRITES": 1000, "H5D_BYTES_WRITTEN": 1000,
                               "H5D_ACCESS1_ACCESS": 1, "H5D_ACCESS1_COUNT": 1000, "H5D_SIZE_WRITE_AGG_0_100": 1000,
                               "H5D_DATASPACE_NDIMS": 1, "H5D_DATASPACE_NPOINTS": 1000, "H5D_DATATYPE_SIZE": 1},
                              {"H5D_F_WRITE_TIME": 0.02}, file=name))
    return Log(2, "python3 /home/user/h5app.py", records + [_stdio("<STDOUT>", 0, written=64, calls=2)])


def format_321_stdio_partial() -> Log:
    """Format 3.21: 2 ranks write 8 MiB each to own files (POSIX); STDIO flagged partial (slot 8 in 3.21)."""
    return Log(2, "./writer-old 8m", [_posix(f"/scratch/o/out.{rank}", rank, written=8 * MIB) for rank in range(2)]
               + [_stdio("<STDOUT>", 0, written=KIB, calls=4)], partial=("STDIO",))


LOGS_341 = {"gen-dfs-ior-4procs": dfs_ior, "gen-daos-arrays-2procs": daos_arrays,
            "gen-shared-unreduced-32procs": shared_unreduced, "gen-stdio-dominant-8procs": stdio_dominant,
            "gen-console-only": console_only, "gen-import-only": import_only, "gen-tiny-2procs": tiny,
            "gen-many-files-4procs": many_files, "gen-shared-some-idle-8procs": shared_some_idle,
            "gen-dxt-partial-2procs": dxt_partial, "gen-h5py-posix-2procs": h5py_posix}
LOGS_321 = {"gen-format-321-stdio-partial": format_321_stdio_partial}
CORRUPT = "gen-corrupt-module"


def corrupt_module(source: Path, path: Path) -> None:
    """A copy of ``source`` whose first module region is garbled after its 2-byte zlib header (header intact)."""
    data = bytearray(source.read_bytes())
    offset, length = struct.unpack("<2Q", data[48 + 16:48 + 32])  # slot 1 (POSIX) of a 3.41 header
    for i in range(offset + 2, offset + length):
        data[i] ^= 0x5A
    path.unlink(missing_ok=True)
    path.write_bytes(bytes(data))


def main(directory: Path = FIXTURES) -> list[Path]:
    """Write every generated log into ``directory``; return their paths."""
    written = []
    for name, make in LOGS_341.items():
        write_341(make(), directory / f"{name}.darshan")
        written.append(directory / f"{name}.darshan")
    for name, make in LOGS_321.items():
        write_321(make(), directory / f"{name}.darshan")
        written.append(directory / f"{name}.darshan")
    corrupt_module(directory / "gen-tiny-2procs.darshan", directory / f"{CORRUPT}.darshan")
    written.append(directory / f"{CORRUPT}.darshan")
    return written


if __name__ == "__main__":
    for out in main(Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURES):
        print(out, out.stat().st_size, "bytes")
