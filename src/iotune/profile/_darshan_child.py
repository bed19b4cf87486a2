"""Read a Darshan log with pydarshan in a child process and print its counters as JSON on stdout.

Run as ``python -m iotune.profile._darshan_child LOG``.  darshan-util may
abort on a damaged log; in a child that costs the child only.
"""

from __future__ import annotations

import json
import sys

MODULES = ("POSIX", "MPI-IO", "STDIO", "H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR")


def read(path: str) -> dict:
    """Job metadata, module flags and every record's non-zero integer counters (and file name) of the modules iotune uses."""
    import darshan

    report = darshan.DarshanReport(path, read_all=True)
    job = report.metadata.get("job", {})
    out = {
        "job": {k: v for k, v in job.items() if k != "metadata"},
        "job_metadata": dict(job.get("metadata") or {}),
        "exe": report.metadata.get("exe", ""),
        "modules": {name: {"partial": bool(info.get("partial_flag")), "version": info.get("ver"),
                           "records": info.get("num_records")} for name, info in report.modules.items()},
        "records": {},
    }
    for name in MODULES:
        if name not in report.records or not len(report.records[name]):
            continue
        frame = report.records[name].to_df()["counters"]
        out["records"][name] = [{k: int(v) for k, v in row.items() if v and k != "id"}
                                | {"rank": int(row["rank"]), "file": str(report.name_records.get(row["id"], ""))}
                                for row in frame.to_dict("records")]
    return out


if __name__ == "__main__":
    json.dump(read(sys.argv[1]), sys.stdout)
