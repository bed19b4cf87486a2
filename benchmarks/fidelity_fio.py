"""Fidelity: iotune's POSIX write with fsync against fio on the same file system, side by side.

Both write the same bytes with the same request size to new files in the same
directory, fsync at the end, and time open to close (fio: its job runtime with
end_fsync=1).  Runs alternate (fio, iotune, fio, iotune, ...) so drift of the
shared machine hits both; the figure is the ratio of median bandwidths.

    .venv/bin/python benchmarks/fidelity_fio.py [--dir DIR] [--size 256MiB] [--bs 1MiB] [--runs 5] [--procs 1 2]
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from iotune.bench.runner import BuiltinRunner
from iotune.bench.trial import MIB, BenchmarkSpec
from iotune.units import format_size, parse_size


def fio_bandwidth(directory: Path, size: int, block: int, procs: int) -> float:
    """fio's aggregate write bandwidth in MiB/s (psync, buffered, fsync at end, no preallocation)."""
    command = ["fio", "--name=fidelity", f"--directory={directory}", "--rw=write", f"--bs={block}",
               f"--size={size}", "--ioengine=psync", "--end_fsync=1", "--fallocate=none", "--unlink=1",
               f"--numjobs={procs}", "--group_reporting", "--output-format=json"]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    job = json.loads(output[output.index("{"):])["jobs"][0]
    return job["write"]["io_bytes"] / MIB / (job["job_runtime"] / 1000.0) if "job_runtime" in job \
        else job["write"]["bw"] / 1024.0


def iotune_bandwidth(runner: BuiltinRunner, directory: Path, size: int, block: int, procs: int) -> float:
    spec = BenchmarkSpec(api="POSIX", processes=procs, block_size=size, transfer_size=block, segment_count=1,
                         file_per_process=True, collective=False, operation="write", fsync=True)
    measurement = runner.run(spec, directory)
    if measurement.status != "COMPLETE":
        raise SystemExit(f"iotune trial failed: {measurement.error}")
    return measurement.phase("write").bandwidth_mib


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "iotune-fidelity")
    parser.add_argument("--size", default="256MiB", help="bytes per process")
    parser.add_argument("--bs", default="1MiB", help="request size")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--procs", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    if not shutil.which("fio"):
        raise SystemExit("fio is not installed (apt-get install fio)")
    size, block = parse_size(args.size), parse_size(args.bs)
    args.dir.mkdir(parents=True, exist_ok=True)
    fs = subprocess.run(["stat", "-f", "-c", "%T", str(args.dir)], capture_output=True, text=True).stdout.strip()
    print(f"machine: {platform.node()} {platform.machine()} kernel {platform.release()}; dir {args.dir} ({fs})")
    print(f"{format_size(size)} per process, {format_size(block)} requests, write + fsync, {args.runs} runs each")
    runner = BuiltinRunner()
    try:
        for procs in args.procs:
            fio_runs, iotune_runs = [], []
            for _ in range(args.runs):
                fio_runs.append(fio_bandwidth(args.dir, size, block, procs))
                iotune_runs.append(iotune_bandwidth(runner, args.dir, size, block, procs))
            fio_median, iotune_median = statistics.median(fio_runs), statistics.median(iotune_runs)
            print(f"processes={procs}: fio median {fio_median:.1f} MiB/s {sorted(round(x) for x in fio_runs)}; "
                  f"iotune median {iotune_median:.1f} MiB/s {sorted(round(x) for x in iotune_runs)}; "
                  f"ratio iotune/fio = {iotune_median / fio_median:.3f}")
    finally:
        runner.close()
        shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
