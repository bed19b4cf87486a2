"""A :class:`Workload` from a Darshan log (paper 001, Section II: Darshan profiles I/O but sets nothing).

pydarshan (``darshan.DarshanReport``) reads the log in one child process
(:mod:`iotune.profile._darshan_child`), after :func:`read_header` has
refused files that cannot be complete logs, so that a damaged log gives one
line instead of a crash.  The characteristics of paper 000, Section 2.2 come
from the layer that carries most of the bytes (:mod:`~iotune.profile.darshan_layers`:
MPI-IO, possibly under HDF5 or PnetCDF; HDF5 over POSIX; POSIX outside MPI-IO;
STDIO; DFS; DAOS; the runtime's own files left out), read by the rules of :mod:`~iotune.profile.darshan_facts` (shared
files, I/O processes, request size); :mod:`~iotune.profile.darshan_warnings`
says when data is incomplete or tuning is pointless.  Collective: the MPI-IO
collective calls (``MPIIO_COLL_READS + _WRITES``) exceed the independent ones.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from iotune.profile import darshan_facts, darshan_layers, darshan_warnings
from iotune.profile.darshan_header import read_log
from iotune.profile.darshan_regions import damaged_regions
from iotune.workload import Workload, WorkloadError

LIBRARIES = {"H5F": "HDF5", "H5D": "HDF5", "PNETCDF_FILE": "PnetCDF", "PNETCDF_VAR": "PnetCDF"}
FILE_MODULES = ("POSIX", "MPI-IO", "STDIO", "DFS", "DAOS")
# Regions of the log every profile reads, besides the modules of darshan_warnings.USED_MODULES.
READ_REGIONS = ("job", "file-name", "layout", "compression type")
TIMEOUT = 120.0


def read_darshan(path: str | Path, timeout: float = TIMEOUT) -> dict:
    """The log's counters as plain data (see :mod:`iotune.profile._darshan_child`) and pydarshan's complaints.

    WorkloadError when the file is not a complete Darshan 3 log, pydarshan is
    missing, the reader fails or crashes (the error keeps pydarshan's words), or
    a region this profile reads fails its checksum while pydarshan said nothing
    (:mod:`~iotune.profile.darshan_regions`); damage to a region it does not read
    is a warning (``data["damaged"]``).
    """
    header, raw = read_log(path)
    damaged = damaged_regions(raw, header.compression, list(header.regions))
    del raw
    try:
        import darshan  # noqa: F401
    except ImportError:
        raise WorkloadError("reading Darshan logs needs pydarshan: pip install darshan") from None
    try:
        done = subprocess.run([sys.executable, "-m", "iotune.profile._darshan_child", str(path)],
                              capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise WorkloadError(f"{path}: pydarshan did not finish reading the log in {timeout:g} s") from None
    stderr = done.stderr.decode("utf-8", "replace")
    complaints = list(dict.fromkeys(line.strip() for line in stderr.splitlines() if line.startswith("Error:")))
    if done.returncode != 0:
        cause = " ".join(complaints[:2]) if complaints else (stderr.strip().splitlines() or ["no message"])[-1]
        raise WorkloadError(f"{path}: corrupt Darshan log (pydarshan failed: {cause})")
    try:
        data = json.loads(done.stdout)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise WorkloadError(f"{path}: corrupt Darshan log (pydarshan gave no readable result)") from None
    data["complaints"] = complaints
    data["header"] = {"version": header.version, "partial_modules": list(header.partial_modules)}
    unsaid = [region for region in damaged if not _said(region, complaints)]
    read = [region for region in unsaid if region in READ_REGIONS or region in darshan_warnings.USED_MODULES]
    if read:
        raise WorkloadError(f"{path}: corrupt Darshan log: {_damage(read)}; pydarshan read it without a word, "
                            "but the counters of a damaged region cannot be trusted")
    data["damaged"] = unsaid + (["header"] if header.undefined_slots else [])
    return data


def _said(region: str, complaints: list[str]) -> bool:
    """Whether pydarshan's complaints already name ``region`` (its words: "module POSIX data", "job data")."""
    words = {"job": "job data", "file-name": "name"}.get(region, f" {region} ")
    return any(words in line for line in complaints)


def _damage(regions: list[str]) -> str:
    """What is wrong with the damaged ``regions``, in words."""
    said = []
    if "layout" in regions:
        said.append("its header maps regions that overlap, leave gaps or do not end where the file ends")
    if "compression type" in regions:
        said.append("its header names no known compression")
    named = [r for r in regions if r not in ("layout", "compression type")]
    if named:
        said.append(f"its {', '.join(named)} data fail{'s' if len(named) == 1 else ''} the compression checksum "
                    "(the file changed after Darshan wrote it)")
    return "; ".join(said)


def from_darshan(path: str | Path) -> Workload:
    """The workload a Darshan log describes; WorkloadError when it has no I/O data or cannot be read."""
    return summarize(read_darshan(path), source=str(path))


def _no_data(data: dict, source: str, processes: int) -> WorkloadError:
    records, complaints = data["records"], data.get("complaints", [])
    what = f"{processes} processes, {data.get('exe', '').strip() or 'unknown command'}"
    if complaints:
        return WorkloadError(f"{source}: pydarshan could not read the log's I/O records ({' '.join(complaints[:2])}); "
                             f"only job metadata was readable ({what})")
    if any(records.values()):
        listed = ", ".join(f"{len(rows)} {name}" for name, rows in records.items() if rows)
        return WorkloadError(f"{source}: no bytes moved: the log has {listed} record(s) but no reads or writes "
                             f"({what})")
    return WorkloadError(f"{source}: no instrumentation data: the log has job metadata only ({what}) and no I/O "
                         "records")


def _files(records: dict[str, list[dict]], names: dict[str, str]) -> dict[str, tuple[int, int]]:
    """Bytes (read, written) per file name over the file-level modules (a file's largest figure per module).

    HDF5 datasets and PnetCDF variables are parts of files, not files, and are left out.
    """
    out: dict[str, tuple[int, int]] = {}
    for module in FILE_MODULES:
        prefix = darshan_layers.PREFIX[module]
        for row in records.get(module, []):
            name = names.get(str(row["id"]), str(row["id"]))
            read, written = out.get(name, (0, 0))
            out[name] = (max(read, row.get(f"{prefix}_BYTES_READ", 0)),
                         max(written, row.get(f"{prefix}_BYTES_WRITTEN", 0)))
    return out


def summarize(data: dict, source: str = "") -> Workload:
    """A Workload from the plain data :func:`read_darshan` returns."""
    job, records, modules = data["job"], data["records"], data["modules"]
    nprocs = int(job.get("nprocs") or 1)
    version = data.get("header", {}).get("version", job.get("log_ver", "?"))
    library = data.get("job_metadata", {}).get("lib_ver")
    notes = [f"Darshan log format {version}" + (f", library {library}" if library else "")]
    if data.get("exe"):
        notes.append(f"command: {data['exe'].strip()}")
    warnings = [f"pydarshan: {line}" for line in data.get("complaints", [])]
    warnings += darshan_warnings.partial_data(data.get("header", {}).get("partial_modules", []))
    warnings += darshan_warnings.damaged(data.get("damaged", []))
    kept, runtime_files, runtime_bytes = darshan_layers.without_runtime(records, data.get("names", {}))
    found = darshan_layers.layers(kept)
    if found and runtime_files:
        records = kept
        notes.append(f"{runtime_files} file(s) of the program's runtime (Python modules and extensions, shared "
                     f"libraries, system files; {darshan_layers.approx_size(runtime_bytes)}) are left out: they are "
                     "read to start the program, not its workload")
    elif not found:
        found = darshan_layers.layers(records)
    if not found:
        raise _no_data(data, source, nprocs)
    layer, why, mixed = darshan_layers.choose(found)
    notes += why
    warnings += mixed
    for name in sorted({LIBRARIES[m] for m in modules if m in LIBRARIES}):
        notes.append(f"{name} module present")
    if "MPI-IO" not in modules:
        notes.append("non-MPI: no MPI-IO module in the log" if nprocs == 1 else "no MPI-IO module in the log")
    if layer.interface in ("DFS", "DAOS"):
        notes.append(f"{layer.interface} is benchmarked through POSIX here")
    over_posix = layer.label == "HDF5 over POSIX"
    if over_posix:
        notes.append("HDF5 over POSIX (its files have no MPI-IO records): benchmarked through POSIX; the requests "
                     "are the H5D records' dataset reads and writes")
    rows, prefix = [r for r in layer.records if darshan_layers.moved(r, layer.prefix)], layer.prefix
    bytes_read = sum(r.get(f"{prefix}_BYTES_READ", 0) for r in rows)
    bytes_written = sum(r.get(f"{prefix}_BYTES_WRITTEN", 0) for r in rows)
    shared_bytes, shared_files = darshan_facts.shared_bytes(rows, prefix)
    shared = shared_bytes * 2 >= bytes_read + bytes_written
    notes.append(f"{'shared file' if shared else 'file per process'}: "
                 + (f"{100 * shared_bytes / (bytes_read + bytes_written):.0f}% of the bytes are in {shared_files} "
                    "file(s) more than one rank accessed (one record of rank -1, or records of several ranks)"
                    if shared_files else "no file was accessed by more than one rank"))
    processes, estimated = darshan_facts.io_processes(rows, prefix, nprocs)
    notes.append(f"I/O processes: {processes} of {nprocs}, the ranks that moved bytes"
                 + (" (for shared records, estimated from Darshan's per-rank byte statistics)" if estimated else ""))
    mpiio = records.get("MPI-IO", [])
    coll = sum(r.get("MPIIO_COLL_READS", 0) + r.get("MPIIO_COLL_WRITES", 0) for r in mpiio)
    indep = sum(r.get("MPIIO_INDEP_READS", 0) + r.get("MPIIO_INDEP_WRITES", 0) for r in mpiio)
    if mpiio:
        notes.append(f"MPI-IO calls: {coll} collective, {indep} independent")
    request, how, only_mean = darshan_facts.request_size(rows, prefix)
    if only_mean:
        warnings.append(f"transfer size {request} B is estimated: {how}")
    elif how:
        notes.append(f"request size {how}")
    notes.append("iterations cannot be read from a Darshan log: 1 assumed")
    everything = sum(x.volume for x in found)
    warnings += darshan_warnings.pointless_tuning(
        interface=layer.interface, share=layer.volume / everything, total_bytes=everything,
        files=_files(records, data.get("names", {})))
    return Workload.from_io(
        interface=layer.interface, processes=processes, job_processes=nprocs, transfer_size=request,
        bytes_per_process=max(bytes_read, bytes_written) // processes, bytes_read=bytes_read,
        bytes_written=bytes_written, collective=coll > indep, shared_file=shared, iterations=1,
        modules=sorted(modules), source=source, notes=notes, warnings=warnings, api="POSIX" if over_posix else None,
        io_seconds=darshan_facts.io_seconds(rows, prefix))
