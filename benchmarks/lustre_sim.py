"""Throughput of the Lustre OST queue simulation (iotune.analytic.lustre_sim).

Prints simulated requests per second (Lindley steps across all lanes, burn-in
included) for each inter-arrival/service combination, at paper 004's Table III
parameters (lambda = 0.1/s, gamma = 0.125/s, rho = 0.8).

    .venv/bin/python benchmarks/lustre_sim.py [--count WAITS] [--repeats R]
"""

import argparse
import platform
import time

from iotune.analytic import LustreQueueModel, stationary_waits

COMBINATIONS = [
    ("poisson", "exponential"),
    ("poisson", "deterministic"),
    ("poisson", "lognormal"),
    ("deterministic", "exponential"),
    ("lognormal", "lognormal"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=500_000, help="steady-state waits per run")
    parser.add_argument("--repeats", type=int, default=2, help="runs per combination; the best is reported")
    args = parser.parse_args()
    model = LustreQueueModel(arrival_rate=0.1, service_rate=0.125, bandwidth=62.5e6)
    print(f"# {platform.processor() or platform.machine()}, python {platform.python_version()}, count={args.count}")
    print(f"{'arrival':<14}{'service':<14}{'requests':>14}{'seconds':>10}{'Mrequests/s':>14}")
    for arrival, service in COMBINATIONS:
        best = float("inf")
        for seed in range(args.repeats):
            start = time.perf_counter()
            sample = stationary_waits(model, args.count, seed, arrival, service)
            best = min(best, time.perf_counter() - start)
        print(f"{arrival:<14}{service:<14}{sample.requests:>14d}{best:>10.3f}{sample.requests / best / 1e6:>14.1f}")


if __name__ == "__main__":
    main()
