"""Fidelity: iotune's POSIX write with fsync against fio on the same file system, side by side.

Before every run dirty pages are synced and (as root) caches dropped.  Both write the same bytes with the same request size to new files in the same
directory, fsync at the end, and time open to close (fio: its job runtime with
end_fsync=1).  Runs come in pairs, one of each tool in a random order, so drift of the shared
machine and order effects hit both; the figures are the ratios of the median and
of the best bandwidths.

    .venv/bin/python benchmarks/fidelity_fio.py [--dir DIR | --ramdisk] [--size 256MiB] [--bs 1MiB] [--runs 5]
        [--procs 1 2]

``--ramdisk`` (root) builds ext4 on a loop device backed by a file in /dev/shm
and removes it afterwards: a device without the run-to-run noise of a shared
virtual disk, so that differences between the two tools show instead.
fio's create_on_open keeps it from laying the file out before the timed write
(IOR and iotune do not), and refill_buffers gives it fresh data for every
request, as iotune's default data pattern ("offset") does: a virtual disk that
deduplicates would otherwise absorb repeated buffers and both tools would
measure that instead of the device.
"""

from __future__ import annotations

import argparse
import json
import random
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from iotune.bench.runner import BuiltinRunner
from iotune.units import MIB
from iotune.records import BenchmarkSpec
from iotune.units import format_size, parse_size


def fio_bandwidth(directory: Path, size: int, block: int, procs: int, testbed=None) -> float:
    """fio's aggregate write bandwidth in MiB/s (psync, buffered, fsync at end, no preallocation)."""
    command = ["fio", "--name=fidelity", f"--directory={directory}", "--rw=write", f"--bs={block}",
               f"--size={size}", "--ioengine=psync", "--end_fsync=1", "--fallocate=none", "--create_on_open=1", "--refill_buffers=1",
               "--unlink=1",
               f"--numjobs={procs}", "--group_reporting", "--output-format=json"]
    if testbed is None:
        output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    else:
        process = testbed.run_in_cgroup(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        output, errors = process.communicate()
        if process.returncode:
            raise SystemExit(f"fio failed: {errors.strip()}")
    write = json.loads(output[output.index("{"):])["jobs"][0]["write"]
    # with group_reporting, write.runtime is the longest job's (ms); job_runtime would be their sum
    return write["io_bytes"] / MIB / (write["runtime"] / 1000.0)


def iotune_bandwidth(runner: BuiltinRunner, directory: Path, size: int, block: int, procs: int) -> float:
    spec = BenchmarkSpec(api="POSIX", processes=procs, block_size=size, transfer_size=block, segment_count=1,
                         file_per_process=True, collective=False, operation="write", fsync=True)
    measurement = runner.run(spec, directory)
    if measurement.status != "COMPLETE":
        raise SystemExit(f"iotune trial failed: {measurement.error}")
    return measurement.phase("write").bandwidth_mib


def settle(seconds: float) -> None:
    """Start every run from the same state: dirty pages written back, caches dropped (root), a pause."""
    os.sync()
    if os.geteuid() == 0:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    time.sleep(seconds)


@contextmanager
def ramdisk(size: int):
    """ext4 on a loop device over a file in /dev/shm, mounted on a temporary directory; always torn down."""
    image = Path(tempfile.mkstemp(prefix="iotune-fidelity-", suffix=".img", dir="/dev/shm")[1])
    mountpoint = Path(tempfile.mkdtemp(prefix="iotune-fidelity-mnt-"))
    device = None
    try:
        os.truncate(image, size)
        device = subprocess.run(["losetup", "--find", "--show", str(image)], check=True, capture_output=True,
                                text=True).stdout.strip()
        subprocess.run(["mkfs.ext4", "-q", "-F", device], check=True, capture_output=True)
        subprocess.run(["mount", device, str(mountpoint)], check=True, capture_output=True)
        yield mountpoint
    finally:
        subprocess.run(["umount", str(mountpoint)], capture_output=True)
        if device:
            subprocess.run(["losetup", "-d", device], capture_output=True)
        image.unlink(missing_ok=True)
        mountpoint.rmdir()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "iotune-fidelity")
    parser.add_argument("--size", default="256MiB", help="bytes per process")
    parser.add_argument("--bs", default="1MiB", help="request size")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--procs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--ramdisk", action="store_true", help="ext4 on a loop device in /dev/shm (root)")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds of pause before every run")
    parser.add_argument("--throttle", type=float, default=None, metavar="MBPS",
                        help="run both tools on an iotune testbed (ext4, loop device) throttled to MBPS (root)")
    args = parser.parse_args()
    if not shutil.which("fio"):
        raise SystemExit("fio is not installed (apt-get install fio)")
    size, block = parse_size(args.size), parse_size(args.bs)
    if args.throttle:
        from iotune.testbed import StorageConfig, Testbed

        size_mib = max(512, 3 * size * max(args.procs) // MIB)
        with Testbed() as testbed:
            built = testbed.build(StorageConfig(fs="ext4", write_mbps=args.throttle, read_mbps=args.throttle,
                                                size_mib=size_mib))
            args.dir = built.mountpoint
            print(f"testbed: ext4 on {', '.join(built.devices)}, write and read limited to {args.throttle:g} MB/s")
            compare(args, size, block, testbed)
    elif args.ramdisk:
        with ramdisk(size * max(args.procs) * 2 + 256 * MIB) as mountpoint:
            args.dir = mountpoint
            compare(args, size, block)
    else:
        args.dir.mkdir(parents=True, exist_ok=True)
        try:
            compare(args, size, block)
        finally:
            shutil.rmtree(args.dir, ignore_errors=True)


def compare(args, size: int, block: int, testbed=None) -> None:
    fs = subprocess.run(["stat", "-f", "-c", "%T", str(args.dir)], capture_output=True, text=True).stdout.strip()
    print(f"machine: {platform.node()} {platform.machine()} kernel {platform.release()}; dir {args.dir} ({fs})")
    print(f"{format_size(size)} per process, {format_size(block)} requests, write + fsync, {args.runs} runs each")
    runner = testbed.runner() if testbed is not None else BuiltinRunner()
    try:
        for procs in args.procs:
            fio_runs, iotune_runs = [], []
            order = random.Random(procs)
            for _ in range(args.runs):
                pair = [("fio", lambda: fio_bandwidth(args.dir, size, block, procs, testbed)),
                        ("iotune", lambda: iotune_bandwidth(runner, args.dir, size, block, procs))]
                order.shuffle(pair)  # which tool goes first changes run to run: no order effect survives
                for tool, measure in pair:
                    settle(args.settle)
                    (fio_runs if tool == "fio" else iotune_runs).append(measure())
            fio_median, iotune_median = statistics.median(fio_runs), statistics.median(iotune_runs)
            print(f"processes={procs}: fio median {fio_median:.1f} MiB/s {sorted(round(x) for x in fio_runs)}; "
                  f"iotune median {iotune_median:.1f} MiB/s {sorted(round(x) for x in iotune_runs)}; "
                  f"ratio of medians iotune/fio = {iotune_median / fio_median:.3f}, "
                  f"of maxima = {max(iotune_runs) / max(fio_runs):.3f}")
    finally:
        runner.close()


if __name__ == "__main__":
    main()
