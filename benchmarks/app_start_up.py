"""How much of an mpi4py application's wall time is start-up, and what its own metric sees instead (issue 19).

Runs ``tests/apply/app_sleepy.py`` (sleep 1 s, then each rank writes 4 MiB with MPI-IO and rank 0 prints
the write's time) under ``mpiexec -n P`` a few times, through iotune's command runner: once measured by
wall time, once by ``--metric 'write time: ([0-9.]+) s'``; and measures the start-up iotune warns with
(:func:`iotune.apply.launch.start_up`, uncached).  Usage:

    .venv/bin/python benchmarks/app_start_up.py [--processes 2] [--runs 3] [--scratch DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from iotune.apply.command import execute
from iotune.apply.launch import start_up
from iotune.apply.metric import Metric

APP = Path(__file__).resolve().parents[1] / "tests" / "apply" / "app_sleepy.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scratch", type=Path, default=None)
    args = parser.parse_args()
    scratch = Path(args.scratch or tempfile.mkdtemp(prefix="iotune-startup-"))
    made = args.scratch is None
    mpiexec = str(Path(sys.executable).parent / "mpiexec")
    command = [mpiexec, "-n", str(args.processes), sys.executable, str(APP), str(scratch / "out.dat")]
    startup = start_up(command, None)
    print(f"start-up: {startup.describe()}; launches {', '.join(f'{s:.3f}' for s in startup.seconds)} s")
    metric = Metric.parse(r"write time: ([0-9.]+) s")
    walls, values = [], []
    for _ in range(args.runs):
        done = execute(command, {}, {}, metric=metric, stdout_to_stderr=True)
        walls.append(done.wall_seconds)
        values.append(done.metric_value)
    print(f"wall time of {args.runs} runs: {', '.join(f'{w:.3f}' for w in walls)} s "
          f"(mean {statistics.fmean(walls):.3f} s)")
    print(f"the application's own write time: {', '.join(f'{v:.4f}' for v in values)} s "
          f"(mean {statistics.fmean(values):.4f} s, {100 * statistics.fmean(values) / statistics.fmean(walls):.1f}% "
          "of the wall time)")
    (scratch / "out.dat").unlink(missing_ok=True)
    if made:
        scratch.rmdir()


if __name__ == "__main__":
    main()
