"""World start time, trial rate and idle CPU: gforker (the default, listens on no port) against hydra.

Worlds of 2 ranks are started alternately with each launcher; each world runs a
few trials of the launch-overhead workload (shared file, MPI-IO, 1 MiB per rank in
256 KiB transfers, write + read, fsync).  Usage:

    .venv/bin/python benchmarks/world_launchers.py [--worlds 8] [--trials 20] [--scratch DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from iotune.bench.runner import make_trial_dir
from iotune.records import BenchmarkSpec
from iotune.units import MIB
from iotune.bench.world import WorkerWorld, find_mpiexec, local_launcher, process_tree

SPEC = BenchmarkSpec(
    api="MPIIO", processes=2, block_size=MIB, transfer_size=256 * 1024, operation="readwrite", fsync=True
)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_world(mpiexec: str, trials: int, scratch: Path) -> tuple[float, float, float]:
    """Seconds to start a world, trials per minute through it, idle CPU of all its processes (cores)."""
    started = time.perf_counter()
    with WorkerWorld(SPEC.processes, mpiexec=mpiexec, timeout=120) as world:
        world.ping()
        start = time.perf_counter() - started
        trial_dir = make_trial_dir(scratch)
        try:
            begun = time.perf_counter()
            for _ in range(trials):
                measurement = world.run(SPEC, trial_dir)
                if measurement.status != "COMPLETE":
                    raise SystemExit(f"trial failed: {measurement.error}")
            rate = 60.0 * trials / (time.perf_counter() - begun)
        finally:
            shutil.rmtree(trial_dir, ignore_errors=True)
        tree = process_tree(world._proc.pid)
        before = [cpu_seconds(pid) for pid in tree]
        time.sleep(2.0)
        idle = sum(cpu_seconds(pid) - b for pid, b in zip(tree, before)) / 2.0
    return start, rate, idle


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=8, help="worlds per launcher, started alternately")
    parser.add_argument("--trials", type=int, default=20, help="trials per world")
    parser.add_argument("--scratch", type=Path, default=None)
    args = parser.parse_args()
    default = find_mpiexec()
    launchers = {"gforker (default)": default, "hydra": str(Path(default).parent / "mpiexec.hydra")}
    print(f"default launcher: {local_launcher(default)}")
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="iotune-bench-"))
    results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in launchers}
    try:
        for _ in range(args.worlds):
            for name, mpiexec in launchers.items():
                results[name].append(one_world(mpiexec, args.trials, scratch))
    finally:
        if args.scratch is None:
            shutil.rmtree(scratch, ignore_errors=True)
    print("| launcher | world start, median s | trials/min, median | idle CPU of the world, median cores |")
    print("|---|---|---|---|")
    for name, rows in results.items():
        starts, rates, idles = zip(*rows)
        print(f"| {name} | {statistics.median(starts):.2f} | {statistics.median(rates):.0f} "
              f"| {statistics.median(idles):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
