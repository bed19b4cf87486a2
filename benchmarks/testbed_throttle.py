"""Measured bandwidth through iotune's builtin POSIX runner as a fraction of the testbed's blkio limit.

Each limit L (MB/s, 10**6 B/s) builds a one-device ext4 testbed with write and
read limits L, runs the builtin runner's ranks inside its cgroup (2 ranks, a
file per process, 32 MiB each in 1 MiB transfers, write then read) and prints
measured/L per phase.  The write phase ends with fsync (IOR -e); a last row
writes without fsync to show the cgroup v1 pitfall: buffered writes escape the
throttle.  Needs root, loop devices, blkio v1 and MPI.  Usage:

    .venv/bin/python benchmarks/testbed_throttle.py [--limits 16 32 64] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics

from iotune.units import MIB
from iotune.records import BenchmarkSpec
from iotune.testbed import StorageConfig, Testbed


def spec(fsync: bool) -> BenchmarkSpec:
    return BenchmarkSpec(api="POSIX", processes=2, block_size=32 * MIB, transfer_size=MIB, file_per_process=True,
                         operation="readwrite", fsync=fsync)


def fractions(limit: float, repeats: int, fsync: bool, cache_mode: str) -> dict[str, list[float]]:
    """measured MB/s divided by ``limit`` MB/s for each phase and repeat."""
    found: dict[str, list[float]] = {"write": [], "read": []}
    with Testbed() as bed:
        bed.build(StorageConfig(fs="ext4", write_mbps=limit, read_mbps=limit))
        with bed.runner(timeout=300, cache_mode=cache_mode) as runner:
            for _ in range(repeats):
                measurement = runner.run(spec(fsync), bed.built.mountpoint)
                if measurement.status != "COMPLETE":
                    raise SystemExit(f"trial failed: {measurement.error}")
                for phase in measurement.phases:
                    found[phase.phase].append(phase.bytes / phase.seconds / 1e6 / limit)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limits", type=float, nargs="+", default=[16.0, 32.0, 64.0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'limit MB/s':>10} {'write':>6} {'cache mode':>12} {'write fraction':>22} {'read fraction':>22}")
    cases = [(limit, True, mode) for limit in args.limits for mode in ("drop_caches", "o_direct")]
    cases.append((args.limits[len(args.limits) // 2], False, "drop_caches"))
    for limit, fsync, mode in cases:
        found = fractions(limit, args.repeats, fsync, mode)
        cells = [f"{statistics.mean(v):.3f} ({min(v):.3f}-{max(v):.3f})" for v in (found["write"], found["read"])]
        print(f"{limit:>10g} {'fsync' if fsync else 'no fsync':>6} {mode:>12} {cells[0]:>22} {cells[1]:>22}",
              flush=True)


if __name__ == "__main__":
    main()
