"""Measure the elastic-cache calibration B_M(x), D_M(x) on throttled loop disks (paper 002, Sec. III-C/D, IV-E).

Scaled from the paper's GB to MiB: datasets 16/32/64 MiB, cache disks of
32/64/128 MiB, backing disk at 33 MB/s, cache disk at 128 MB/s (10**6 B/s),
dd with O_DIRECT in 1 MiB blocks (see iotune.analytic.calibration for the
method).  Prints B_M(x) and D_M(x) per (x, M) with the spread over repeats,
and the static B(x) of each disk.  Needs root, loop devices and blkio v1.

    .venv/bin/python benchmarks/cache_calibration.py [--datasets 16 32 64] [--caches 32 64 128] [--repeats 2]
"""

from __future__ import annotations

import argparse
import time

from iotune.analytic.calibration import measure_calibration


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, nargs="+", default=[16, 32, 64])
    parser.add_argument("--caches", type=int, nargs="+", default=[32, 64, 128])
    parser.add_argument("--slow-mbps", type=float, default=33.0)
    parser.add_argument("--fast-mbps", type=float, default=128.0)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    start = time.perf_counter()
    result = measure_calibration(args.datasets, args.caches, args.slow_mbps, args.fast_mbps, args.repeats)
    print(f"{'x MiB':>6} {'M MiB':>6} {'cached':>6} {'B_M(x) MB/s (min-max)':>24} {'D_M(x) s (min-max)':>22}")
    for x in result.dataset_mib:
        for m in result.cache_mib:
            group = [s for s in result.samples if (s.dataset_mib, s.cache_mib) == (x, m)]
            b = [s.throughput_mbps for s in group]
            d = [s.attach_s for s in group]
            print(f"{x:>6} {m:>6} {group[0].cached_mib:>6} "
                  f"{sum(b) / len(b):>8.1f} ({min(b):6.1f}-{max(b):6.1f}) {sum(d) / len(d):>7.3f} ({min(d):.3f}-{max(d):.3f})")
    fast, slow = result.fast_mbps_measured(), result.slow_mbps_measured()
    print(f"static-fast B(x) MB/s (limit {args.fast_mbps:g}): " + ", ".join(f"{x} MiB {v:.1f}" for x, v in fast.items()))
    print(f"static-slow B(x) MB/s (limit {args.slow_mbps:g}): " + ", ".join(f"{x} MiB {v:.1f}" for x, v in slow.items()))
    print(f"{args.repeats} repeats, {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
