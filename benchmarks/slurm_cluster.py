"""Timings of the test Slurm cluster (tests/slurm_cluster.py): start, stop, and job latencies.

As root, with slurm-wlm and munge installed (and mpich + mpi4py in the venv for the MPI figure):

    .venv/bin/python benchmarks/slurm_cluster.py [--starts 5] [--jobs 20]

Figures, in seconds, each the median and maximum over its repeats:

- start: munged + slurmctld + 3 slurmd launched until sinfo shows all nodes idle;
- stop: cancel jobs, stop the daemons, sweep stray processes, remove the directory;
- sbatch -> task: from just before ``sbatch`` to the first line of the batch script (its own clock);
- sbatch -> seen finished: until ``squeue --states=all`` (polled every 0.1 s) shows the job ended;
- array of 3 -> all started: ``sbatch --array=0-2`` until the last of the three tasks began;
- MPI job: ``sbatch -N3`` of ``mpiexec -n 3 python mpi_placement.py`` until seen finished, and the
  time mpiexec itself took inside the job.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.slurm_cluster import slurm_problem, start_slurm_cluster  # noqa: E402

PLACEMENT = ROOT / "tests" / "cluster" / "mpi_placement.py"


def summary(name: str, values: list[float]) -> str:
    return f"| {name} | {len(values)} | {statistics.median(values):.3f} | {max(values):.3f} |"


def start_stop(repeats: int) -> tuple[list[float], list[float]]:
    starts, stops = [], []
    for _ in range(repeats):
        began = time.perf_counter()
        cluster = start_slurm_cluster()
        starts.append(time.perf_counter() - began)
        began = time.perf_counter()
        cluster.stop()
        stops.append(time.perf_counter() - began)
    return starts, stops


def single_jobs(cluster, work: Path, repeats: int) -> tuple[list[float], list[float]]:
    to_task, to_seen = [], []
    for index in range(repeats):
        stamp = work / f"start{index}"
        script = f"#!/bin/bash\ndate +%s.%N > {stamp}\n"
        submitted = time.time()
        job = cluster.sbatch("--output=/dev/null", script=script, cwd=work)
        cluster.wait_finished(job)
        to_seen.append(time.time() - submitted)
        to_task.append(float(stamp.read_text()) - submitted)
    return to_task, to_seen


def arrays(cluster, work: Path, repeats: int) -> list[float]:
    latencies = []
    for index in range(repeats):
        script = f"#!/bin/bash\ndate +%s.%N > {work}/array{index}_$SLURM_ARRAY_TASK_ID\n"
        submitted = time.time()
        job = cluster.sbatch("--array=0-2", "--output=/dev/null", script=script, cwd=work)
        cluster.wait_finished(job, tasks=3)
        latencies.append(max(float((work / f"array{index}_{task}").read_text()) for task in range(3)) - submitted)
    return latencies


def mpi_jobs(cluster, work: Path, repeats: int) -> tuple[list[float], list[float]]:
    from iotune.bench.world import find_mpiexec

    totals, inside = [], []
    for index in range(repeats):
        timing = work / f"mpi{index}"
        script = (
            f"#!/bin/bash\nbegan=$(date +%s.%N)\n"
            f"{find_mpiexec()} -n 3 {sys.executable} {PLACEMENT} {work}/placement{index}.json || exit 1\n"
            f'echo "$began $(date +%s.%N)" > {timing}\n'
        )
        submitted = time.time()
        job = cluster.sbatch("-N3", "--ntasks-per-node=1", "--output=/dev/null", script=script, cwd=work)
        states = cluster.wait_finished(job, timeout=300)
        if states != {job: "COMPLETED"}:
            raise SystemExit(f"MPI job {job} ended {states}")
        totals.append(time.time() - submitted)
        began, ended = map(float, timing.read_text().split())
        inside.append(ended - began)
    return totals, inside


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=5, help="cluster start/stop cycles")
    parser.add_argument("--jobs", type=int, default=20, help="repeats of each job latency")
    args = parser.parse_args()
    problem = slurm_problem()
    if problem:
        raise SystemExit(problem)
    starts, stops = start_stop(args.starts)
    cluster = start_slurm_cluster()
    try:
        with tempfile.TemporaryDirectory(prefix="iotune-slurm-bench-") as scratch:
            work = Path(scratch)
            to_task, to_seen = single_jobs(cluster, work, args.jobs)
            array_started = arrays(cluster, work, max(1, args.jobs // 2))
            mpi_total, mpi_inside = mpi_jobs(cluster, work, max(1, args.jobs // 4))
    finally:
        cluster.stop()
    print("| what | repeats | median s | max s |")
    print("|---|---|---|---|")
    for name, values in [
        ("cluster start (3 nodes idle)", starts),
        ("cluster stop", stops),
        ("sbatch -> batch script running", to_task),
        ("sbatch -> seen finished (squeue)", to_seen),
        ("sbatch --array=0-2 -> all 3 tasks running", array_started),
        ("sbatch -N3 mpiexec -n 3 -> seen finished", mpi_total),
        ("mpiexec -n 3 across n1..n3, inside the job", mpi_inside),
    ]:
        print(summary(name, values))


if __name__ == "__main__":
    main()
