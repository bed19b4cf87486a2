"""The IOR backend against the built-in runner, like for like, and campaign throughput against IOR.

Part 1, fidelity: for each workload, ``--pairs`` interleaved pairs of trials,
one through ``IorRunner`` (the ``ior`` binary) and one through
``BuiltinRunner`` (iotune's kernel), in a random order within each pair
(seeded), same spec, same scratch directory, same read cache mode (caches
dropped before each read as root, else fadvise).  Write + fsync then read.
Prints each runner's median bandwidth per phase (MiB/s) and the ratio of
medians IOR / built-in.

Part 2, throughput: trials per minute of the launch-overhead workload (2
ranks, shared file, MPI-IO, 1 MiB per rank in 256 KiB transfers, write + fsync
+ read) through the built-in runner's persistent world, through IOR with the
caches dropped before each read (the same work), and through IOR reading from
the page cache (plain ``ior -w -r``).

    .venv/bin/python benchmarks/ior_compare.py [--pairs 20] [--size 64MiB] [--transfer 1MiB]
        [--workloads posix_fpp mpiio_collective mpiio_independent mpiio_collective_4m]
        [--throughput-trials 30] [--scratch DIR] [--seed 0]

Needs ``ior`` (IOR 4, github.com/hpc/ior, built against the MPICH that
``mpiexec`` belongs to) on PATH; run as root so that caches can be dropped.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from iotune.bench.ior import IorRunner
from iotune.bench.runner import BuiltinRunner
from iotune.records import BenchmarkSpec
from iotune.units import MIB, format_size, parse_size

WORKLOADS = {
    "posix_fpp": dict(api="POSIX", file_per_process=True),
    "mpiio_collective": dict(api="MPIIO", collective=True),
    "mpiio_independent": dict(api="MPIIO", collective=False),
    "mpiio_collective_4m": dict(api="MPIIO", collective=True, transfer_size=4 * MIB),
}
THROUGHPUT_SPEC = BenchmarkSpec(api="MPIIO", processes=2, block_size=MIB, transfer_size=256 * 1024,
                                operation="readwrite", fsync=True)


def fidelity(spec: BenchmarkSpec, pairs: int, scratch: Path, rng: random.Random, cache_mode: str) -> dict:
    """Bandwidths (MiB/s) per runner and phase over interleaved pairs."""
    bandwidth = {name: {"write": [], "read": []} for name in ("ior", "builtin")}
    with BuiltinRunner(cache_mode=cache_mode) as builtin:
        runners = {"ior": IorRunner(cache_mode=cache_mode), "builtin": builtin}
        builtin.run(spec, scratch)  # start the world outside the measurement
        for _ in range(pairs):
            order = ["ior", "builtin"]
            rng.shuffle(order)
            for name in order:
                m = runners[name].run(spec, scratch)
                if m.status != "COMPLETE":
                    raise SystemExit(f"{name} failed: {m.error}")
                for phase in ("write", "read"):
                    bandwidth[name][phase].append(m.phase(phase).bandwidth_mib)
                mode = m.read_cache_mode
    return {"bandwidth": bandwidth, "cache_mode": mode}


def trials_per_minute(runner, trials: int, scratch: Path) -> float:
    runner.run(THROUGHPUT_SPEC, scratch)
    started = time.perf_counter()
    for _ in range(trials):
        m = runner.run(THROUGHPUT_SPEC, scratch)
        if m.status != "COMPLETE":
            raise SystemExit(f"{runner.name} failed: {m.error}")
    return 60.0 * trials / (time.perf_counter() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--size", default="64MiB", help="bytes per process per phase")
    parser.add_argument("--transfer", default="1MiB")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--workloads", nargs="+", default=sorted(WORKLOADS), choices=sorted(WORKLOADS))
    parser.add_argument("--throughput-trials", type=int, default=30)
    parser.add_argument("--scratch", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if shutil.which("ior") is None:
        raise SystemExit("ior is not on PATH: build IOR 4 from github.com/hpc/ior against this MPICH")
    cache_mode = "drop_caches" if os.geteuid() == 0 else "fadvise_dontneed"
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="iotune-ior-compare-"))
    rng = random.Random(args.seed)
    print(f"{platform.node()} {platform.platform()} {os.cpu_count()} cores; scratch {scratch}; "
          f"read cache mode {cache_mode}; {args.pairs} interleaved pairs per workload")
    try:
        print("\nworkload | IOR write | built-in write | ratio | IOR read | built-in read | ratio")
        for name in args.workloads:
            base = BenchmarkSpec(processes=args.processes, block_size=parse_size(args.size),
                                 transfer_size=parse_size(args.transfer), operation="readwrite", fsync=True)
            spec = replace(base, **WORKLOADS[name])
            result = fidelity(spec, args.pairs, scratch, rng, cache_mode)
            cells = []
            for phase in ("write", "read"):
                ior = statistics.median(result["bandwidth"]["ior"][phase])
                own = statistics.median(result["bandwidth"]["builtin"][phase])
                cells += [f"{ior:.1f}", f"{own:.1f}", f"{ior / own:.3f}"]
            label = f"{name} ({format_size(spec.transfer_size, 'iec')} transfers, {result['cache_mode']})"
            print(f"{label} | " + " | ".join(cells), flush=True)

        n = args.throughput_trials
        with BuiltinRunner(cache_mode=cache_mode) as builtin:
            own = trials_per_minute(builtin, n, scratch)
        same_work = trials_per_minute(IorRunner(cache_mode=cache_mode), n, scratch)
        page_cache = trials_per_minute(IorRunner(cache_mode="page_cache"), n, scratch)
        print(f"\ntrials/min over {n} trials: built-in persistent world {own:.0f}; "
              f"IOR, caches dropped before the read ({cache_mode}) {same_work:.0f} "
              f"(iotune {own / same_work:.1f}x); IOR reading from the page cache {page_cache:.0f} "
              f"(iotune {own / page_cache:.2f}x)")
    finally:
        if args.scratch is None:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
