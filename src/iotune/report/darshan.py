"""A Darshan log as a workload summary: the job, the workload iotune reads from it, the volume moved through
each layer, request sizes and files (Darshan's own counters, read by :mod:`iotune.profile.darshan_log`)."""

from __future__ import annotations

import shlex
from datetime import datetime, timezone
from pathlib import Path

from iotune.profile.darshan_facts import BINS
from iotune.profile.darshan_log import read_darshan, summarize
from iotune.report.tables import Figure, Section, Table
from iotune.units import MIB, format_size
from iotune.workload import Workload

# Data layers from the application's down to the file system's: (Darshan module, counter prefix, label).
LAYERS = (("H5D", "H5D", "HDF5 datasets"), ("PNETCDF_VAR", "PNETCDF_VAR", "PnetCDF variables"),
          ("MPI-IO", "MPIIO", "MPI-IO"), ("POSIX", "POSIX", "POSIX"), ("STDIO", "STDIO", "STDIO"))
CALLS = ("", "INDEP_", "COLL_", "SPLIT_", "NB_")
TOP_FILES = 20


def _total(records: list[dict], name: str) -> int:
    return sum(r.get(name, 0) for r in records)


def _calls(records: list[dict], prefix: str, kind: str) -> int:
    """Read or write calls (``kind`` READS or WRITES) of a layer: plain, independent, collective, split,
    non-blocking."""
    return sum(_total(records, f"{prefix}_{c}{kind}") for c in CALLS)


def volume_table(data: dict) -> Table:
    """Per layer with data: MiB read and written, read and write calls, file records."""
    rows = []
    for module, prefix, label in LAYERS:
        records = data["records"].get(module, [])
        read, written = _total(records, f"{prefix}_BYTES_READ"), _total(records, f"{prefix}_BYTES_WRITTEN")
        if records and read + written:
            rows.append((label, read / MIB, written / MIB, _calls(records, prefix, "READS"),
                         _calls(records, prefix, "WRITES"), len(records)))
    return Table(("layer", "read (MiB)", "written (MiB)", "read calls", "write calls", "file records"), rows,
                 "Volume by layer",
                 "An application's bytes are counted at every layer they pass: HDF5 writes show again under "
                 "MPI-IO and POSIX. MiB = 2^20 bytes.")


def request_table(data: dict) -> Table:
    """Per layer and request-size bin (Darshan's histogram): read and write calls."""
    rows = []
    for module, prefix, label in LAYERS:
        records = data["records"].get(module, [])
        middle = "_" if prefix in ("POSIX", "STDIO") else "_AGG_"
        counts = [(suffix, _total(records, f"{prefix}_SIZE_READ{middle}{suffix}"),
                   _total(records, f"{prefix}_SIZE_WRITE{middle}{suffix}")) for suffix in BINS]
        if any(r + w for _, r, w in counts):
            rows += [(label, _bin_label(suffix), r, w) for suffix, r, w in counts]
    return Table(("layer", "request size", "read calls", "write calls"), rows, "Request sizes",
                 "Darshan's histogram of the bytes per call; MPI-IO and HDF5 count a collective call's whole "
                 "(aggregate) size.")


BIN_LABELS = {"0_100": "0-100B", "100_1K": "100B-1KiB", "1K_10K": "1-10KiB", "10K_100K": "10-100KiB",
              "100K_1M": "100KiB-1MiB", "1M_4M": "1-4MiB", "4M_10M": "4-10MiB", "10M_100M": "10-100MiB",
              "100M_1G": "100MiB-1GiB", "1G_PLUS": "1GiB and more"}
"""Darshan's request-size bins; its K, M, G are powers of 1024 (``darshan_facts.BINS``)."""


def _bin_label(suffix: str) -> str:
    return BIN_LABELS[suffix]


def files_table(data: dict) -> Table:
    """The files that moved the most bytes at the lowest layer with data (POSIX, else STDIO), largest first."""
    for module in ("POSIX", "STDIO"):
        records = data["records"].get(module, [])
        if records:
            break
    else:
        return Table(("file", "rank", "read (MiB)", "written (MiB)", "read calls", "write calls"), [])
    moved = sorted(records, key=lambda r: -(r.get(f"{module}_BYTES_READ", 0) + r.get(f"{module}_BYTES_WRITTEN", 0)))
    names = data.get("names", {})
    rows = [(names.get(str(r.get("id"))) or "(name not read)", "every rank (shared)" if r["rank"] < 0 else r["rank"],
             r.get(f"{module}_BYTES_READ", 0) / MIB, r.get(f"{module}_BYTES_WRITTEN", 0) / MIB,
             r.get(f"{module}_READS", 0), r.get(f"{module}_WRITES", 0)) for r in moved[:TOP_FILES]]
    shared = sum(1 for r in records if r["rank"] < 0)
    return Table(("file", "rank", "read (MiB)", "written (MiB)", "read calls", "write calls"), rows,
                 f"Files ({module})",
                 f"{len(records)} {module} file records: {shared} shared by every rank, {len(records) - shared} "
                 f"opened by one rank" + (f"; the {TOP_FILES} that moved the most bytes" if len(records) > TOP_FILES
                                          else "") + ".")


def job_table(data: dict, workload) -> Table:
    """The job and the workload iotune derives from the log (its benchmark fields)."""
    job = data["job"]
    start = job.get("start_time_sec")
    rows = [("command", (data.get("exe") or "").strip() or "-"),
            ("processes in the job", job.get("nprocs", "-")),
            ("run time (s)", job.get("run_time", "-")),
            ("started (UTC)", datetime.fromtimestamp(start, timezone.utc).isoformat(timespec="seconds")
             if start else "-"),
            ("interface the application used", workload.interface),
            ("api (as the benchmark runs it)", workload.api),
            ("processes doing I/O", workload.processes),
            ("transfer_size (dominant request)", f"{format_size(workload.transfer_size)} ({workload.transfer_size} "
                                                 "bytes)"),
            ("block_size (bytes per process)", f"{format_size(workload.block_size)} ({workload.block_size} bytes)"),
            ("collective", workload.collective),
            ("file_per_process", workload.file_per_process),
            ("operation", workload.operation),
            ("read in all", f"{format_size(workload.bytes_read)} ({workload.bytes_read} bytes)"),
            ("written in all", f"{format_size(workload.bytes_written)} ({workload.bytes_written} bytes)")]
    return Table(("", "value"), rows, "The job and its workload")


def read_profile(path: str | Path) -> tuple[dict, Workload]:
    """A Darshan log's counters and the workload iotune reads from them (WorkloadError when unreadable or empty)."""
    data = read_darshan(path)
    return data, summarize(data, source=str(path))


def profile_section(path: str | Path, read: tuple[dict, Workload] | None = None) -> Section:
    """The workload summary of one Darshan log; ``read`` is :func:`read_profile`'s result when already read."""
    data, workload = read if read is not None else read_profile(path)
    section = Section("profile", f"Workload profile: {Path(path).name}")
    section.paragraphs.append(
        f"Darshan log {path}; iotune reads it as this workload "
        f"(`iotune recommend --workload {shlex.quote(Path(path).name)}` and "
        "`iotune report --profile` take the log as is).")
    if workload.notes:
        section.paragraphs.append("Notes: " + "; ".join(workload.notes) + ".")
    section.warnings += list(workload.warnings)
    section.tables.append(job_table(data, workload))
    volume = volume_table(data)
    section.tables.append(volume)
    if volume.rows:
        section.figures.append(Figure(
            "profile-volume", "bars", "Bytes moved by layer", volume, "MiB read and written as each layer counted "
            "them (a byte passes several layers).",
            {"label": "layer", "series": ["read (MiB)", "written (MiB)"], "xlabel": "MiB (2^20 bytes)"}))
    requests = request_table(data)
    if requests.rows:
        section.figures.append(Figure(
            "profile-requests", "histogram", "Request sizes by layer", requests,
            "Calls per request-size bin, read and write, one panel per layer.",
            {"panel": "layer", "label": "request size", "series": ["read calls", "write calls"]}))
        section.tables.append(requests)
    files = files_table(data)
    if files.rows:
        section.tables.append(files)
    return section
