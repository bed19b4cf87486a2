"""How far one PostgreSQL carries a campaign's queue: claim and commit latency with N concurrent workers.

As root with PostgreSQL's server binaries (a throwaway server, as tests/conftest.py starts one):

    .venv/bin/python benchmarks/store_queue.py [--workers 16 64 256] [--seconds 20] [--trial-ms 0 50]

Each simulated worker is a process (forked after iotune is imported) with its
own ``Store``: it claims the next trial (``Store.claim``: ``SELECT ... FOR
UPDATE SKIP LOCKED``, then the update to RUNNING, one transaction), "runs" it
(sleeps ``trial-ms``), and commits a two-phase measurement
(``Store.finish_trial`` with the owner check), again and again for
``seconds``.  Then the same workers poll an empty queue (what idle workers do)
for a few seconds.  Printed per worker count: trials finished per second, the
claim and commit latency (median, 95th and 99th percentile, ms) and the empty
polls per second the server answered, and the CPU time the server spent per
trial and per empty poll (the postmaster and its backends, from /proc): what
sizes a dedicated server.  Everything runs on this host: the workers compete
with the server for the same cores.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from iotune.owner import process_owner  # noqa: E402
from iotune.records import Measurement, PhaseResult  # noqa: E402
from iotune.store import Store  # noqa: E402
from tests.conftest import _as_postgres, _free_port, _postgres_bindir  # noqa: E402

MEASUREMENT = Measurement("COMPLETE", [PhaseResult("write", 2**20, 0.01, 0.0, 0.01, 0.0, 4),
                                       PhaseResult("read", 2**20, 0.01, 0.0, 0.01, 0.0, 4)])


class Server:
    """A throwaway PostgreSQL on a Unix socket, removed on close."""

    def __init__(self, max_connections: int):
        self.bindir = _postgres_bindir()
        if self.bindir is None or os.geteuid() != 0:
            sys.exit("needs root and PostgreSQL's server binaries (apt-get install postgresql)")
        self.root = Path(tempfile.mkdtemp(prefix="iotune-pg-bench-"))
        shutil.chown(self.root, "postgres", "postgres")
        self.data = self.root / "data"
        _as_postgres(self.bindir / "initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8",
                     "--no-sync", cwd=self.root)
        port = _free_port()
        options = (f"-p {port} -k {self.root} -c listen_addresses='' -c max_connections={max_connections} "
                   "-c shared_buffers=256MB")
        _as_postgres(self.bindir / "pg_ctl", "-D", self.data, "-l", self.root / "log", "-w", "-o", options, "start",
                     cwd=self.root)
        self.url = f"postgresql+psycopg://postgres@/postgres?host={self.root}&port={port}"
        self.port = port

    def database(self, name: str) -> str:
        import sqlalchemy as sa

        engine = sa.create_engine(self.url, isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
        engine.dispose()
        return f"postgresql+psycopg://postgres@/{name}?host={self.root}&port={self.port}"

    def cpu_seconds(self) -> float:
        """CPU time the server has used so far: the postmaster and its live children, plus reaped backends."""
        ticks = os.sysconf("SC_CLK_TCK")
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        total = 0
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(entry) == postmaster:
                total += sum(int(v) for v in fields[11:15])  # utime, stime, cutime, cstime
            elif int(fields[1]) == postmaster:
                total += int(fields[11]) + int(fields[12])
        return total / ticks

    def close(self) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m",
                        "immediate", "stop"], cwd=self.root, capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)


def fill(url: str, trials: int) -> None:
    with Store(url) as store:
        study = store.create_study("queue", "", "h", {})
        for start in range(0, trials, 5000):
            store.enqueue(study.id, [{"config": {"i": i}, "config_key": f"k{i}", "workload_key": "w", "repeat": 0}
                                     for i in range(start, min(trials, start + 5000))])


def simulated_worker(url, go, start, seconds, idle_seconds, trial_s, results) -> None:
    """Once ``go`` is set, claim, sleep, commit for ``seconds``; then poll the (empty) queue for ``idle_seconds``."""
    claims, commits, polls = [], [], 0
    with Store(url) as store:
        owner = process_owner()
        study = store.get_study("queue").id
        go.wait()
        busy_until, idle_until = start.value + seconds, start.value + seconds + idle_seconds
        time.sleep(max(0.0, start.value - time.time()))
        while time.time() < busy_until:
            began = time.perf_counter()
            trial = store.claim(study, owner)
            claimed = time.perf_counter()
            if trial is None:
                break
            claims.append(claimed - began)
            if trial_s:
                time.sleep(trial_s)
            began = time.perf_counter()
            store.finish_trial(trial.id, MEASUREMENT, owner=owner)
            commits.append(time.perf_counter() - began)
        time.sleep(max(0.0, busy_until - time.time()))
        while time.time() < idle_until:
            store.claim(study, owner)
            polls += 1
    results.put((claims, commits, polls))


def percentiles(values: list[float]) -> str:
    if len(values) < 2:
        return "- / - / -"
    cuts = statistics.quantiles(values, n=100)
    return f"{1000 * statistics.median(values):.1f} / {1000 * cuts[94]:.1f} / {1000 * cuts[98]:.1f}"


def run(server: Server, workers: int, seconds: float, trial_ms: float, idle_seconds: float, prefill: int) -> str:
    url = server.database(f"queue_{workers}_{int(trial_ms)}")
    fill(url, prefill)
    results, go, start = mp.Queue(), mp.Event(), mp.Value("d", 0.0)
    processes = [mp.Process(target=simulated_worker, args=(url, go, start, seconds, idle_seconds, trial_ms / 1000,
                                                           results)) for _ in range(workers)]
    for process in processes:
        process.start()
    time.sleep(5.0 + workers * 0.05)  # every worker has connected
    start.value = time.time() + 1.0
    busy_until, idle_until = start.value + seconds, start.value + seconds + idle_seconds
    go.set()
    time.sleep(max(0.0, start.value - time.time()))
    cpu = [server.cpu_seconds()]
    for moment in (busy_until, idle_until):
        time.sleep(max(0.0, moment - time.time()))
        cpu.append(server.cpu_seconds())
    gathered = [results.get(timeout=seconds + idle_seconds + 600) for _ in processes]
    for process in processes:
        process.join()
    claims = [v for c, _, _ in gathered for v in c]
    commits = [v for _, c, _ in gathered for v in c]
    polls = sum(p for _, _, p in gathered)
    with Store(url) as store:
        done = store.queue_counts("queue").get("COMPLETE", 0)
    if done >= prefill:
        print(f"warning: the queue ran dry ({prefill} trials); raise --prefill", file=sys.stderr)
    busy_cpu, idle_cpu = cpu[1] - cpu[0], cpu[2] - cpu[1]
    return (f"| {workers} | {trial_ms:g} | {done / seconds:.0f} | {percentiles(claims)} | {percentiles(commits)} | "
            f"{1000 * busy_cpu / max(done, 1):.2f} | {polls / idle_seconds:.0f} | {1000 * idle_cpu / max(polls, 1):.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--idle-seconds", type=float, default=5.0)
    parser.add_argument("--trial-ms", type=float, nargs="+", default=[0.0])
    parser.add_argument("--prefill", type=int, default=40_000)
    args = parser.parse_args()
    mp.set_start_method("fork")
    server = Server(max(args.workers) + 20)
    try:
        print("| workers | trial ms | trials/s | claim ms p50 / p95 / p99 | commit ms p50 / p95 / p99 | "
              "server CPU ms / trial | empty polls/s | server CPU ms / empty poll |")
        print("|---|---|---|---|---|---|---|---|")
        for trial_ms in args.trial_ms:
            for workers in args.workers:
                print(run(server, workers, args.seconds, trial_ms, args.idle_seconds, args.prefill), flush=True)
    finally:
        server.close()


if __name__ == "__main__":
    main()
