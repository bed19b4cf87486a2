"""Seconds to decide every measured workload of a large study (``iotune results``' answer): the noise of each
workload borrows the other workloads' spread, computed once per workload (``decide_all``) against once per
pair of workloads (``decide_measured`` given the other workloads' runs, as one workload alone is decided).

    .venv/bin/python benchmarks/decide_all_speed.py [--workloads 200] [--configurations 50] [--repeats 3]
"""

from __future__ import annotations

import argparse
import platform
import random
import time

from iotune.recommend.decision import Measured, fastest_first, measured_noise, spread_elsewhere, tied_with_best
from iotune.variability.confidence import spread_of_workloads, workload_spread


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", type=int, default=200)
    parser.add_argument("--configurations", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rng = random.Random(0)
    groups = {w: fastest_first([Measured({}, f"{w}-{c}", [rng.lognormvariate(0, 0.05 * (1 + w % 4))
                                                          for _ in range(args.repeats)])
                                for c in range(args.configurations)]) for w in range(args.workloads)}
    started = time.perf_counter()
    pairwise = []
    for key, ranked in groups.items():
        noise = measured_noise(ranked, spread_elsewhere([g for k, g in groups.items() if k != key]))
        pairwise.append(tied_with_best(ranked, noise))
    per_pair = time.perf_counter() - started
    started = time.perf_counter()
    spreads = {key: workload_spread(m.times for m in ranked) for key, ranked in groups.items()}
    once = []
    for key, ranked in groups.items():
        noise = measured_noise(ranked, spread_of_workloads(s for k, s in spreads.items() if k != key))
        once.append(tied_with_best(ranked, noise))
    per_workload = time.perf_counter() - started
    runs = args.workloads * args.configurations * args.repeats
    print(f"{runs:,} runs, {args.workloads} workloads ({platform.machine()}, Python {platform.python_version()}): "
          f"spread per pair of workloads {per_pair:.2f} s, once per workload {per_workload:.3f} s "
          f"({per_pair / per_workload:.0f}x), same answers: {pairwise == once}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
