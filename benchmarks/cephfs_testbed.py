"""CephFS testbed figures (issue 20): bring-up and teardown time, memory, leftovers over build/teardown cycles,
the blkio throttle per OSD and aggregate write bandwidth for stripe_count 1..N against N x the limit.

    sudo .venv/bin/python benchmarks/cephfs_testbed.py --cycles 20 --servers 3 --mbps 20

Needs root and the Ceph packages.  Prints one line per cycle and per write, then a summary.
"""

from __future__ import annotations

import argparse
import mmap
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from iotune.fslayout import apply_to_file
from iotune.testbed import StorageConfig, Testbed
from iotune.testbed.cgroup import BLKIO_ROOT
from iotune.testbed.system import STEP_ENV

MIB = 1 << 20


def marked(directory: Path) -> list[int]:
    mark = f"{STEP_ENV}={directory}".encode()
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and mark in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                found.append(int(entry))
        except OSError:
            pass
    return found


def rss_mib(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def leftovers(root: Path, name: str) -> list[str]:
    found = [line for line in subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout.splitlines()
             if str(root) in line]
    found += [line for line in Path("/proc/mounts").read_text().splitlines() if str(root) in line]
    found += [str(p) for p in [BLKIO_ROOT / f"iotune-{name}"] if p.exists()]
    found += [f"pid {p}" for p in marked(root / name)]
    return found


def service_bytes(group: Path) -> dict[str, int]:
    """Bytes written per device ("MAJ:MIN") by the cgroup's processes (the OSDs)."""
    out = {}
    for line in (group / "blkio.throttle.io_service_bytes").read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "Write":
            out[parts[0]] = int(parts[2])
    return out


def write_file(path: Path, layout: dict, size: int, block: int = 4 * MIB, direct: bool = True) -> tuple[float, dict]:
    """Write ``size`` bytes in ``block``-sized writes (O_DIRECT, or buffered), then fsync; (seconds, layout)."""
    in_effect = apply_to_file(path, layout)
    buffer = mmap.mmap(-1, block)
    buffer.write(os.urandom(block))
    fd = os.open(path, os.O_WRONLY | (os.O_DIRECT if direct else 0))
    try:
        start = time.perf_counter()
        for offset in range(0, size, block):
            os.pwrite(fd, buffer, offset)
        os.fsync(fd)
        seconds = time.perf_counter() - start
    finally:
        os.close(fd)
    return seconds, in_effect


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=20)
    parser.add_argument("--servers", type=int, default=3)
    parser.add_argument("--mbps", type=float, default=20.0)
    parser.add_argument("--size-mib", type=int, default=96)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--block-mib", type=int, default=12, help="size of each write")
    parser.add_argument("--object-mib", type=int, default=4, help="layout object_size")
    parser.add_argument("--buffered", action="store_true", help="buffered writes (the client's cache) + fsync")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="iotune-cephfs-bench-", dir="/var/tmp"))
    config = StorageConfig(fs="cephfs", devices=args.servers, write_mbps=args.mbps, size_mib=2048)
    ups, downs, memory, dirty = [], [], [], 0
    for cycle in range(args.cycles):
        bed = Testbed(root)
        start = time.perf_counter()
        built = bed.build(config)
        up = time.perf_counter() - start
        mem = rss_mib(marked(built.state_dir))
        start = time.perf_counter()
        bed.teardown()
        down = time.perf_counter() - start
        left = leftovers(root, built.name)
        dirty += bool(left)
        ups.append(up), downs.append(down), memory.append(mem)
        print(f"cycle {cycle + 1}: up {up:.1f} s, down {down:.2f} s, daemons' RSS {mem:.0f} MiB, "
              f"leftovers {left or 0}", flush=True)
    if ups:
        print(f"SUMMARY cycles {len(ups)}: up median {statistics.median(ups):.1f} s (min {min(ups):.1f}, max "
              f"{max(ups):.1f}); down median {statistics.median(downs):.2f} s; RSS median "
              f"{statistics.median(memory):.0f} MiB; cycles with leftovers {dirty}", flush=True)
    bed = Testbed(root)
    built = bed.build(config)
    try:
        size = args.size_mib * MIB
        limit = args.servers * args.mbps
        for count in range(1, args.servers + 1):
            layout = {"stripe_count": str(count), "stripe_unit": str((args.object_mib if count == 1 else 1) * MIB),
                      "object_size": str(args.object_mib * MIB)}
            rates = []
            for repeat in range(args.repeats):
                before = service_bytes(built.cgroup)
                seconds, in_effect = write_file(built.mountpoint / f"f{count}-{repeat}", layout, size,
                                               args.block_mib * MIB, not args.buffered)
                after = service_bytes(built.cgroup)
                per_osd = sorted((after.get(d, 0) - before.get(d, 0)) / 1e6 / seconds for d in after)
                rates.append(size / 1e6 / seconds)
                kind = "buffered" if args.buffered else "O_DIRECT"
                print(f"stripe_count {count} ({args.block_mib} MiB {kind} writes; in effect {in_effect['stripe_count']} x {in_effect['stripe_unit']} B): "
                      f"{rates[-1]:.1f} MB/s; per-OSD device writes MB/s {[round(r, 1) for r in per_osd]} "
                      f"(limit {args.mbps:g})", flush=True)
                (built.mountpoint / f"f{count}-{repeat}").unlink()
            print(f"SUMMARY stripe_count {count}: median {statistics.median(rates):.1f} MB/s "
                  f"(min {min(rates):.1f}, max {max(rates):.1f}) of {args.servers} x {args.mbps:g} = {limit:g} MB/s",
                  flush=True)
    finally:
        bed.teardown()
        left = leftovers(root, built.name)
        print(f"final teardown leftovers: {left or 0}", flush=True)
        try:
            root.rmdir()
        except OSError:
            pass


if __name__ == "__main__":
    main()
