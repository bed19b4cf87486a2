"""Campaign throughput on the test Slurm cluster: trials per minute with 1, 2 and 3 workers (tiny real trials).

As root, with slurm-wlm, munge and PostgreSQL's server installed:

    .venv/bin/python benchmarks/slurm_campaign.py [--workers 1 2 3] [--repeats 3]

Starts the three-node cluster of tests/slurm_cluster.py and a throwaway PostgreSQL, then for each worker
count runs ``iotune bench tiny.yaml --executor slurm --workers N`` into a fresh database: 18
configurations x ``repeats`` trials, each 2 MPI processes writing and reading 256 KiB apiece through ROMIO
(collective, fsync), caches dropped before the read.  Also the local executor (the one worker in the
controller's process) on the same kind of store, for comparison.  Printed per run:

- steady trials/min: trials / (last trial's end - first trial's start), from the store;
- end-to-end trials/min: trials / the command's wall time (the controller's start, sbatch, the workers'
  start and the campaign's end included);
- the share of the trials each worker ran.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from store_queue import Server  # noqa: E402
from tests.slurm_cluster import slurm_problem, start_slurm_cluster  # noqa: E402

from iotune.store import Store  # noqa: E402

TINY = """\
name: tiny
parameters:
  - {name: transfer_size, type: size, levels: [64KiB, 128KiB, 256KiB], role: workload, layer: application}
  - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio}
  - {name: cb_buffer_size, type: size, levels: [1MiB, 4MiB], role: system, layer: mpiio}
benchmark: {api: MPIIO, processes: 2, block_size: 256KiB, collective: true, fsync: true}
campaign: {repeats: REPEATS}
"""


def run(server: Server, env: dict, workdir: Path, workers: int | None, repeats: int) -> str:
    name = f"tiny_{workers or 'local'}"
    url = server.database(name)
    (workdir / "tiny.yaml").write_text(TINY.replace("REPEATS", str(repeats)))
    args = [sys.executable, "-m", "iotune", "bench", "tiny.yaml", "--db", url, "--scratch", str(workdir / "scratch")]
    if workers is not None:
        args += ["--executor", "slurm", "--workers", str(workers)]
    began = time.perf_counter()
    done = subprocess.run(args, cwd=workdir, env={**env, "IOTUNE_PLAIN": "1"}, capture_output=True, text=True,
                          timeout=1800)
    wall = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr[-2000:]}")
    with Store(url) as store:
        trials = store.trials(study="tiny")
    span = (max(datetime.fromisoformat(t.finished_at) for t in trials)
            - min(datetime.fromisoformat(t.started_at) for t in trials)).total_seconds()
    shares = sorted(Counter(t.owner for t in trials).values(), reverse=True)
    label = "local (in the controller)" if workers is None else f"slurm, {workers} worker(s)"
    return (f"| {label} | {len(trials)} | {60 * len(trials) / span:.0f} | {60 * len(trials) / wall:.0f} | "
            f"{' / '.join(map(str, shares))} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    problem = slurm_problem()
    if problem:
        raise SystemExit(problem)
    cluster = start_slurm_cluster()
    server = Server(100)
    try:
        with tempfile.TemporaryDirectory(prefix="iotune-slurm-bench-") as tmp:
            print("| executor | trials | steady trials/min | end-to-end trials/min | trials per worker |")
            print("|---|---|---|---|---|")
            for workers in [None, *args.workers]:
                workdir = Path(tmp) / f"w{workers}"
                workdir.mkdir()
                print(run(server, cluster.env, workdir, workers, args.repeats), flush=True)
                cluster.cancel_all()
    finally:
        server.close()
        cluster.stop()


if __name__ == "__main__":
    os.environ.setdefault("IOTUNE_PLAIN", "1")
    main()
