"""Read a Darshan log with pydarshan in a child process and print its counters as JSON on stdout.

Run as ``python -m iotune.profile._darshan_child LOG``.  darshan-util may
abort on a damaged log; in a child that costs the child only.  Only the data
modules iotune uses are read (not DXT traces, heatmaps or Lustre layouts),
which keeps the one fork per log short.
"""

from __future__ import annotations

import json
import sys

# Modules whose records carry the bytes an application moved, in pydarshan's names.
DATA_MODULES = ("POSIX", "MPI-IO", "STDIO", "H5F", "H5D", "PNETCDF_VAR", "DFS", "DAOS")
KEPT_FCOUNTERS = ("_F_VARIANCE_RANK_BYTES", "_F_READ_TIME", "_F_WRITE_TIME", "_F_META_TIME",
                  "_F_SLOWEST_RANK_TIME")


def read(path: str) -> dict:
    """Job metadata, the modules present and every data record's non-zero counters, with the records' names.

    A record is ``{"id": ..., "rank": ..., <counter>: <int>, ...}`` (rank -1:
    Darshan reduced a file every rank opened into one record), plus the
    per-rank byte variance (``*_F_VARIANCE_RANK_BYTES``, a float) when set, and for an HDF5 dataset (H5D) the
    record id of its file (``file_rec_id``).
    """
    import darshan
    from darshan.backend.cffi_backend import counter_names, fcounter_names

    # closed here, not by the garbage collector: pydarshan's __del__ calls into cffi, which deadlocks when a
    # collection runs while cffi holds its lock
    with darshan.DarshanReport(path, read_all=False) as report:
        job = report.metadata.get("job", {})
        out = {
            "job": {k: v for k, v in job.items() if k != "metadata"},
            "job_metadata": dict(job.get("metadata") or {}),
            "exe": report.metadata.get("exe", ""),
            "modules": {name: {"version": info.get("ver")} for name, info in report.modules.items()},
            "records": {},
            "names": {},
        }
        ids = set()
        for name in DATA_MODULES:
            if name not in report.modules:
                continue
            report.mod_read_all_records(name, dtype="numpy", warnings=False)
            names, fnames = counter_names(name), fcounter_names(name)
            kept = [(i, n) for i, n in enumerate(fnames) if n.endswith(KEPT_FCOUNTERS)]
            rows = []
            for record in report.records.get(name, []):
                row: dict[str, int | float] = {"id": int(record["id"]), "rank": int(record["rank"])}
                if name == "H5D":  # the file the dataset is in (its H5F and POSIX record id); not in format 3.21
                    try:
                        row["file_rec_id"] = int(record["file_rec_id"])
                    except (KeyError, IndexError, TypeError, ValueError):
                        pass
                row.update((n, int(v)) for n, v in zip(names, record["counters"].tolist(), strict=True) if v)
                row.update((n, float(record["fcounters"][i])) for i, n in kept if record["fcounters"][i])
                rows.append(row)
                ids.add(row["id"])
            out["records"][name] = rows
        out["names"] = {str(i): report.name_records[i] for i in ids if i in report.name_records}
    return out


if __name__ == "__main__":
    json.dump(read(sys.argv[1]), sys.stdout)
