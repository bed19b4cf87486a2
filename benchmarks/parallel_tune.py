"""``iotune tune`` with 1 and with 3 workers: the same quality within the same number of runs, in less wall time?

    .venv/bin/python benchmarks/parallel_tune.py [--budget 10] [--seeds 2] [--workers 1 3] [--tables hints testbed]
                                                 [--clock real|virtual] [--scale 0.3] [--no-prior] [--targets N]

Issue 11's measure of parallel tuning.  The objective is a replayed ground truth (data/ground_truth: the MPI-IO
hints table, 12 workloads x their hint configurations, and the testbed table, 18 workloads x 12 storage
configurations; a stand-in for the storage, no trial is measured).  Each workload in turn is the target,
leave one out: the prior is every other workload of its table (one study holding the whole table, which the
tuner reads without the target's own runs).  The real :class:`iotune.study.tune.Tuning` asks for N runs at a time;
N worker threads (the real :class:`iotune.study.Worker`, as ``iotune worker`` runs it) claim the runs from a
SQLite store and replay them, each sleeping for the recorded I/O time x ``--scale``, so that a slow
configuration takes longer and wall time means something.  The tuning ends when its budget is spent.
With ``--clock virtual`` no thread sleeps: the N workers run on a virtual clock, each run lasting its recorded
time x a log-normal jitter drawn from the seed, and the run that ends first finishes first (the same tuner,
store and queue; the wall time is then the virtual makespan, without the controller's own overhead).  With
real threads the seed changes little (the tuner's draws matter only without a prior; the order runs finish in
follows their recorded times); with the virtual clock it also draws the jitter, hence the order.

Printed per table and N, over targets x seeds: the share of targets whose declared best is within 5% of the
table's optimum for that workload, the median and 90th percentile regret (true value of the pick / optimum - 1)
at the same number of runs, the mean wall time of one tuning and the sum of its runs' recorded times (the
configurations a tuning picks decide how long its runs take).  A worker's trial
time is the table's median repeat (what the replay runner returns), so "true" values are those.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from iotune.records import BenchmarkSpec  # noqa: E402
from iotune.runners.replay import ReplayRunner, ReplayStorage, ReplayTable, _key  # noqa: E402
from iotune.spec import load_spec  # noqa: E402
from iotune.spec.mapping import benchmark_spec  # noqa: E402
from iotune.spec.storage import storage_config  # noqa: E402
from iotune.store import Store  # noqa: E402
from iotune.study import Objective, Study, Worker  # noqa: E402
from iotune.study.measure import prepare  # noqa: E402
from iotune.study.tune import Tuning  # noqa: E402

DATA = ROOT / "data" / "ground_truth"
TABLES = {"hints": "hints_ground_truth", "testbed": "testbed_ground_truth"}


def replay(spec, table, scratch: Path, scale: float):
    """The replay runner and storage (None unless the spec varies storage) at ``scale``."""
    storage = ReplayStorage(table, scratch, scale) if spec.uses_testbed else None
    return ReplayRunner(table, scale=scale), storage


def build_prior(spec, table, path: Path, scratch: Path) -> None:
    """A store whose study "prior" holds one replayed run of every configuration of the table (no sleep)."""
    spec = spec.with_campaign(repeats=1)
    configurations = [c for c in spec.space.full_factorial() if _seconds(spec, table, c) is not None]
    runner, storage = replay(spec, table, scratch, 0.0)
    with Store(path) as store:
        prepare(store, spec, "prior", runner, scratch, storage=storage, configurations=configurations).run()
        Study.create(store, "target", spec)


def _seconds(spec, table, configuration) -> float | None:
    """The replayed I/O time (s) of a configuration: its table entry's median repeat, or None if missing."""
    storage = _key(storage_config(spec.space, configuration, spec.storage).to_dict()) if spec.uses_testbed else ""
    found = table.lookup(storage, BenchmarkSpec.from_dict(benchmark_spec(spec.space, configuration,
                                                                         spec.benchmark).to_dict()))
    return None if found is None else sum(p.seconds for p in found[1])


def workloads(spec, table) -> list[dict]:
    """Every workload (workload parameter values) the table holds."""
    names = [p.name for p in spec.space.workload_parameters]
    found = {}
    for configuration in spec.space.full_factorial():
        if _seconds(spec, table, configuration) is not None:
            values = {n: configuration[n] for n in names}
            found.setdefault(configuration.workload_key, values)
    return list(found.values())


class Workers:
    """``n`` worker threads serving the study's queue (started once the tuner holds the lease)."""

    def __init__(self, url: str, spec, table, n: int, scratch: Path, scale: float):
        self.url, self.spec, self.table, self.n, self.scratch, self.scale = url, spec, table, n, scratch, scale
        self.threads: list[threading.Thread] = []
        self.errors: list[BaseException] = []

    def start(self) -> None:
        for k in range(self.n):
            thread = threading.Thread(target=self._serve, args=(k,), daemon=True)
            thread.start()
            self.threads.append(thread)

    def _serve(self, k: int) -> None:
        try:
            with Store(self.url) as store:
                runner, storage = replay(self.spec, self.table, self.scratch, self.scale)
                worker = Worker(Study.open(store, "target"), runner, self.scratch, storage=storage,
                                owner=f"bench-worker-{k}_0_0_{k}_0")
                worker.serve(poll_s=0.01, poll_max_s=0.05)
                worker.close()
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            self.errors.append(error)

    def join(self) -> None:
        for thread in self.threads:
            thread.join(timeout=120)
        if self.errors:
            raise self.errors[0]


class VirtualQueue:
    """``n`` workers on a virtual clock (no sleep): when the tuner waits, the workers claim queued runs until
    ``n`` run, each lasting its recorded I/O time x a log-normal jitter (sigma ``jitter``, drawn with ``seed``),
    and the run that ends first finishes.  ``clock`` is the virtual time (s) when the last run ended."""

    def __init__(self, store, spec, table, n: int, seed: int, jitter: float = 0.2):
        import random

        self.store, self.n, self.jitter = store, n, jitter
        self.runner, _ = replay(spec, table, Path("."), 0.0)
        self.spec, self.table = spec, table
        self.random = random.Random(seed)
        self.ends: dict[int, float] = {}  # running trial id -> virtual end time
        self.clock = 0.0

    def __call__(self) -> None:
        while len(self.ends) < self.n:
            trial = self.store.claim("target", f"virtual-{len(self.ends)}_0_0_0_0")
            if trial is None:
                break
            configuration = self.spec.space.configuration(trial.config)
            seconds = _seconds(self.spec, self.table, configuration) or 0.0
            self.ends[trial.id] = self.clock + seconds * self.random.lognormvariate(0.0, self.jitter)
        if not self.ends:
            return
        trial_id = min(self.ends, key=lambda k: (self.ends[k], k))
        self.clock = self.ends.pop(trial_id)
        trial = self.store.get_trial(trial_id)
        storage = (_key(storage_config(self.spec.space, self.spec.space.configuration(trial.config),
                                       self.spec.storage).to_dict()) if self.spec.uses_testbed else "")
        self.runner.storage = storage
        measurement = self.runner.run(BenchmarkSpec.from_dict(trial.benchmark), Path("."))
        self.store.finish_trial(trial_id, measurement, owner=trial.owner)


def tune_virtual(template: Path, work: Path, spec, table, target: dict, budget: int, workers: int, seed: int,
                 use_prior: bool = True) -> tuple[str, float, float]:
    """One tuning of ``target`` on a virtual clock: (declared best's key, virtual makespan in s, the runs' time)."""
    path = work / f"virtual-{workers}-{seed}.sqlite"
    shutil.copyfile(template, path)
    with Store(path) as store:
        queue = VirtualQueue(store, spec, table, workers, seed)
        prior = (Study.open(store, "prior"),) if use_prior else ()
        result = Tuning(Study.open(store, "target"), None, target, budget, objective=Objective("time"),
                       prior_studies=prior, seed=seed, workers=workers, on_wait=queue, poll_s=0.0).run()
        busy = sum(t.io_seconds for t in store.trials("target") if t.state == "COMPLETE")
    path.unlink()
    return (None if result.best is None else result.best.configuration.key), queue.clock, busy


def tune_once(template: Path, work: Path, spec, table, target: dict, budget: int, workers: int, seed: int,
              scale: float, use_prior: bool = True) -> tuple[str, float, float]:
    """One tuning of ``target``: (declared best's key, wall time in s, the runs' recorded time in s)."""
    path = work / f"run-{workers}-{seed}.sqlite"
    shutil.copyfile(template, path)
    with Store(path) as store:
        pool = Workers(str(path), spec, table, workers, work, scale)
        prior = (Study.open(store, "prior"),) if use_prior else ()
        tuner = Tuning(Study.open(store, "target"), None, target, budget, objective=Objective("time"),
                      prior_studies=prior, seed=seed, workers=workers, on_start=pool.start, poll_s=0.01)
        started = time.monotonic()
        result = tuner.run()
        wall = time.monotonic() - started
        pool.join()
        runs = [t for t in store.trials("target") if t.state == "COMPLETE"]
    path.unlink()
    slept = sum(t.io_seconds for t in runs)
    return (None if result.best is None else result.best.configuration.key), wall, slept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=10)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 3])
    parser.add_argument("--tables", nargs="+", default=list(TABLES), choices=list(TABLES))
    parser.add_argument("--scale", type=float, default=0.3, help="sleep = recorded I/O time x this")
    parser.add_argument("--targets", type=int, default=None, help="only the first N workloads of each table")
    parser.add_argument("--clock", choices=("real", "virtual"), default="real", help="real: worker threads that "
                        "sleep; virtual: a virtual clock, each run's time jittered by the seed (fast, no sleep)")
    parser.add_argument("--no-prior", action="store_true", help="tune each target from nothing (no other "
                        "workload's runs): the seed then draws the space-filling start")
    args = parser.parse_args()
    print(f"budget {args.budget} runs, seeds {args.seeds}, "
          + ("virtual clock: run time = recorded I/O time x log-normal jitter (sigma 0.2), " if args.clock == "virtual"
             else f"sleep = recorded I/O time x {args.scale}, ")
          + ("no prior" if args.no_prior else "prior: the table's other workloads"))
    print("| table | N | targets x seeds | within 5% | median regret | p90 regret | wall per tuning (s) "
          "| runs' recorded time per tuning (s) |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="iotune-parallel-tune-") as tmp:
        work = Path(tmp)
        for name in args.tables:
            spec = load_spec(DATA / f"{TABLES[name]}.yaml")
            table = ReplayTable(spec, DATA / f"{TABLES[name]}.csv")
            template = work / f"{name}.sqlite"
            build_prior(spec, table, template, work)
            targets = workloads(spec, table)[:args.targets]
            truth = {c.key: _seconds(spec, table, c) for c in spec.space.full_factorial()}
            for n in args.workers:
                regrets, walls, sleeps = [], [], []
                for target in targets:
                    for seed in range(args.seeds):
                        if args.clock == "virtual":
                            best, wall, slept = tune_virtual(template, work, spec, table, target, args.budget, n,
                                                             seed, use_prior=not args.no_prior)
                        else:
                            best, wall, slept = tune_once(template, work, spec, table, target, args.budget, n, seed,
                                                          args.scale, use_prior=not args.no_prior)
                        workload_key = spec.space.configuration(target).workload_key
                        optimum = min(v for c in spec.space.full_factorial() if c.workload_key == workload_key
                                      and (v := truth[c.key]) is not None)
                        regrets.append(truth[best] / optimum - 1 if best is not None else float("inf"))
                        walls.append(wall)
                        sleeps.append(slept)
                within = sum(r <= 0.05 for r in regrets) / len(regrets)
                p90 = statistics.quantiles(regrets, n=10)[-1] if len(regrets) > 1 else regrets[0]
                print(f"| {name} | {n} | {len(targets)} x {args.seeds} | {within:.2f} | "
                      f"{statistics.median(regrets):.3f} | {p90:.3f} | {statistics.fmean(walls):.2f} | "
                      f"{statistics.fmean(sleeps):.2f} |", flush=True)


if __name__ == "__main__":
    main()
