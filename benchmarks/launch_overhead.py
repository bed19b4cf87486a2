"""Trials per minute: the persistent worker world versus a fresh mpiexec per trial.

Workload: 2 ranks, shared file, MPI-IO, block 1 MiB, transfer 256 KiB, write + read,
fsync, read-cache handling "auto" unless --cache-mode says otherwise.  Usage:

    .venv/bin/python benchmarks/launch_overhead.py [--trials 200] [--fresh-trials 20]
        [--scratch DIR] [--cache-mode MODE]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from iotune.bench.runner import BuiltinRunner, make_trial_dir
from iotune.units import MIB
from iotune.records import BenchmarkSpec
from iotune.bench.world import WorkerWorld

SPEC = BenchmarkSpec(
    api="MPIIO", processes=2, block_size=MIB, transfer_size=256 * 1024, operation="readwrite", fsync=True
)


def persistent(trials: int, scratch: Path, cache_mode: str) -> tuple[float, int]:
    """Trials per minute through one BuiltinRunner (world started once, before timing)."""
    failed = 0
    with BuiltinRunner(cache_mode=cache_mode) as runner:
        runner.run(SPEC, scratch)
        started = time.perf_counter()
        for _ in range(trials):
            failed += runner.run(SPEC, scratch).status != "COMPLETE"
        elapsed = time.perf_counter() - started
    return 60.0 * trials / elapsed, failed


def fresh(trials: int, scratch: Path, cache_mode: str) -> tuple[float, int]:
    """Trials per minute when every trial starts its own mpiexec + Python world."""
    failed = 0
    started = time.perf_counter()
    for _ in range(trials):
        trial_dir = make_trial_dir(scratch)
        try:
            with WorkerWorld(SPEC.processes) as world:
                failed += world.run(SPEC, trial_dir, cache_mode).status != "COMPLETE"
        finally:
            shutil.rmtree(trial_dir, ignore_errors=True)
    elapsed = time.perf_counter() - started
    return 60.0 * trials / elapsed, failed


def idle_cpu(seconds: float = 3.0) -> list[float]:
    """CPU used by each rank of an idle world between trials, as a fraction of one core."""
    import os

    def used(pid: int) -> float:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    with WorkerWorld(2) as world:
        world.ping()
        before = [used(pid) for pid in world.pids]
        time.sleep(seconds)
        return [(used(pid) - b) / seconds for pid, b in zip(world.pids, before)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--fresh-trials", type=int, default=20)
    parser.add_argument("--scratch", type=Path, default=None)
    parser.add_argument("--cache-mode", default="auto", help="auto, drop_caches, fadvise_dontneed, page_cache")
    args = parser.parse_args()
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="iotune-bench-"))
    try:
        rate, failed = persistent(args.trials, scratch, args.cache_mode)
        print(f"cache mode {args.cache_mode}")
        print(f"persistent world: {rate:.0f} trials/min over {args.trials} trials ({failed} failed)")
        rate_fresh, failed_fresh = fresh(args.fresh_trials, scratch, args.cache_mode)
        print(
            f"fresh mpiexec per trial: {rate_fresh:.0f} trials/min over {args.fresh_trials} trials"
            f" ({failed_fresh} failed)"
        )
        print(f"speed-up: {rate / rate_fresh:.1f}x")
        print("idle world between trials, CPU per rank (fraction of a core): "
              + ", ".join(f"{share:.2f}" for share in idle_cpu()))
    finally:
        if args.scratch is None:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
