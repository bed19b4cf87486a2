"""A :class:`Workload` from a Darshan log (paper 001, Section II: Darshan profiles I/O but sets nothing).

pydarshan (``darshan.DarshanReport``) reads the log in a child process
(:mod:`iotune.profile._darshan_child`), after :func:`read_header` has
refused files that cannot be complete logs, so that a damaged log gives one
line instead of a crash.  The characteristics of paper 000, Section 2.2 come
from the highest I/O layer that moved data:

- interface: HDF5 (H5F/H5D records), PnetCDF, MPI-IO, POSIX, else STDIO;
- request size: the most frequent exact access size (``*_ACCESS1..4``), else
  the busiest bin of the request-size histogram (``*_SIZE_READ_*`` / ``_WRITE_*``);
- shared file: most bytes are in shared records (rank -1: every rank opened the
  file, so every rank counts as an I/O process);
- collective: ``MPIIO_COLL_READS + MPIIO_COLL_WRITES`` exceed the ``INDEP_`` calls.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from iotune.profile.darshan_header import read_header
from iotune.workload import WorkloadError, Workload

# Data module per interface, with the prefix of its counters.
LAYERS = (("HDF5", "H5D", "H5D"), ("PnetCDF", "PNETCDF_VAR", "PNETCDF_VAR"), ("MPIIO", "MPI-IO", "MPIIO"),
          ("POSIX", "POSIX", "POSIX"), ("STDIO", "STDIO", "STDIO"))
LIBRARIES = {"H5F": "HDF5", "H5D": "HDF5", "PNETCDF_FILE": "PnetCDF", "PNETCDF_VAR": "PnetCDF"}
# Request-size histogram bins (bytes): name suffix -> (low, high).
BINS = {"0_100": (0, 100), "100_1K": (100, 1024), "1K_10K": (1024, 10240), "10K_100K": (10240, 102400),
        "100K_1M": (102400, 1 << 20), "1M_4M": (1 << 20, 4 << 20), "4M_10M": (4 << 20, 10 << 20),
        "10M_100M": (10 << 20, 100 << 20), "100M_1G": (100 << 20, 1 << 30), "1G_PLUS": (1 << 30, 1 << 40)}
TIMEOUT = 120.0


def read_darshan(path: str | Path, timeout: float = TIMEOUT) -> dict:
    """The log's counters as plain data (see :mod:`iotune.profile._darshan_child`) and pydarshan's complaints.

    WorkloadError when the file is not a complete Darshan 3 log, pydarshan is
    missing, or the reader fails or crashes.
    """
    header = read_header(path)
    try:
        import darshan  # noqa: F401
    except ImportError:
        raise WorkloadError("reading Darshan logs needs pydarshan: pip install darshan") from None
    try:
        done = subprocess.run([sys.executable, "-m", "iotune.profile._darshan_child", str(path)],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise WorkloadError(f"{path}: pydarshan did not finish reading the log in {timeout:g} s") from None
    complaints = [line.strip() for line in done.stderr.splitlines() if line.startswith("Error:")]
    if done.returncode != 0:
        cause = complaints[0] if complaints else (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise WorkloadError(f"{path}: corrupt Darshan log (pydarshan failed: {cause})")
    try:
        data = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise WorkloadError(f"{path}: corrupt Darshan log (pydarshan gave no readable result)") from None
    data["complaints"] = complaints
    data["header"] = {"version": header.version, "partial_modules": list(header.partial_modules)}
    return data


def from_darshan(path: str | Path) -> Workload:
    """The workload a Darshan log describes; WorkloadError when it has no I/O data or cannot be read."""
    return summarize(read_darshan(path), source=str(path))


def _sum(records: list[dict], *names: str) -> int:
    return sum(record.get(name, 0) for record in records for name in names)


def _request_size(records: list[dict], prefix: str, notes: list[str]) -> int:
    counts: Counter = Counter()
    for record in records:
        for i in range(1, 5):
            size, count = record.get(f"{prefix}_ACCESS{i}_ACCESS", 0), record.get(f"{prefix}_ACCESS{i}_COUNT", 0)
            if size > 0 and count > 0:
                counts[size] += count
    if counts:
        return counts.most_common(1)[0][0]
    middle = "_AGG_" if prefix != "POSIX" else "_"
    ops: Counter = Counter()
    for record in records:
        for suffix in BINS:
            ops[suffix] += sum(record.get(f"{prefix}_SIZE_{kind}{middle}{suffix}", 0) for kind in ("READ", "WRITE"))
    if not ops or not max(ops.values()):
        return 0
    suffix = ops.most_common(1)[0][0]
    low, high = BINS[suffix]
    calls = _sum(records, f"{prefix}_READS", f"{prefix}_WRITES") or sum(ops.values())
    mean = _sum(records, f"{prefix}_BYTES_READ", f"{prefix}_BYTES_WRITTEN") // max(1, calls)
    notes.append(f"request size estimated from the {prefix} size histogram (bin {suffix})")
    return mean if low <= mean <= high else low


def summarize(data: dict, source: str = "") -> Workload:
    """A Workload from the plain data :func:`read_darshan` returns."""
    job, records, modules = data["job"], data["records"], data["modules"]
    processes = int(job.get("nprocs") or 1)
    version = data.get("header", {}).get("version", job.get("log_ver", "?"))
    library = data.get("job_metadata", {}).get("lib_ver")
    notes = [f"Darshan log format {version}" + (f", library {library}" if library else "")]
    if data.get("exe"):
        notes.append(f"command: {data['exe'].strip()}")
    warnings = [f"pydarshan: {line}" for line in data.get("complaints", [])]
    partial = sorted({*data.get("header", {}).get("partial_modules", []),
                      *(name for name, info in modules.items() if info.get("partial"))})
    for name in partial:
        warnings.append(f"partial data: Darshan's {name} module ran out of record memory; files beyond its "
                        "limit are missing and the counts are lower bounds")
    layer = next(((api, module, prefix) for api, module, prefix in LAYERS
                  if _sum(records.get(module, []), f"{prefix}_BYTES_READ", f"{prefix}_BYTES_WRITTEN")), None)
    if layer is None:
        raise WorkloadError(f"{source}: no instrumentation data: the log has job metadata only ({processes} "
                           f"processes, {data.get('exe', '').strip() or 'unknown command'}) and no I/O records")
    api, module, prefix = layer
    rows = records[module]
    libraries = sorted({LIBRARIES[name] for name in records if name in LIBRARIES})
    for name in libraries:
        notes.append(f"{name} module present")
    if "MPI-IO" not in modules and "MPI-IO" not in records:
        notes.append("non-MPI: no MPI-IO module in the log" if processes == 1 else "no MPI-IO module in the log")
    bytes_read = _sum(rows, f"{prefix}_BYTES_READ")
    bytes_written = _sum(rows, f"{prefix}_BYTES_WRITTEN")
    shared_bytes = sum(r.get(f"{prefix}_BYTES_READ", 0) + r.get(f"{prefix}_BYTES_WRITTEN", 0)
                       for r in rows if r["rank"] < 0)
    shared = shared_bytes * 2 >= bytes_read + bytes_written
    ranks = {r["rank"] for r in rows if r["rank"] >= 0 and
             r.get(f"{prefix}_BYTES_READ", 0) + r.get(f"{prefix}_BYTES_WRITTEN", 0)}
    io_processes = processes if shared_bytes else max(1, min(processes, len(ranks)))
    mpiio = records.get("MPI-IO", [])
    coll = _sum(mpiio, "MPIIO_COLL_READS", "MPIIO_COLL_WRITES")
    indep = _sum(mpiio, "MPIIO_INDEP_READS", "MPIIO_INDEP_WRITES")
    if mpiio:
        notes.append(f"MPI-IO calls: {coll} collective, {indep} independent")
    request = _request_size(rows, prefix, notes)
    notes.append("iterations cannot be read from a Darshan log: 1 assumed")
    return Workload.from_io(
        interface=api, processes=io_processes, job_processes=processes, transfer_size=request,
        bytes_per_process=max(bytes_read, bytes_written) // io_processes, bytes_read=bytes_read,
        bytes_written=bytes_written, collective=coll > indep, shared_file=shared, iterations=1,
        modules=sorted(name for name in records), source=source, notes=notes, warnings=warnings)
