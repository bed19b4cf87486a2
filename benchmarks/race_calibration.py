"""Racing to a decision, replayed: does the raced gain cover, is it decided, how wide, how flattered? (issue 29)

Replays ``iotune tune``'s sampler (:class:`iotune.samplers.TransferSampler` with its race,
:class:`iotune.samplers.race.Race`, asked and told one run at a time as ``Tuning`` drives it, the other
workloads' runs as its prior and their repeats as the store's noise) on every measured table with repeats
(the hints, testbed and striping ground truths).  A case is (table, target workload, seed, budget, race or
not, load): the baseline is drawn among the target's configurations whose true time is at least ``MIN_GAIN``
times the optimum's (so that a gain is there to be found), a run "measures" by drawing one recorded repeat of
the cell, and under ``drift`` every run is multiplied by a load that wanders over the tuning (a random walk of
±``DRIFT_STEP`` in log per run, as a shared machine's load rises and falls over minutes).  The statements
are made as ``tune`` makes them (``iotune.study.tune.summarise_runs``) and judged against the table's truth
(geometric mean over every recorded repeat of a cell, quiet):

- coverage of the 95 % gain interval (true baseline / true declared best inside it);
- decided: the interval's lower bound above 1;
- median width of the gain interval (high / low) and median stated / true gain;
- pick: the declared best's true time within 5 % of the optimum.

    .venv/bin/python benchmarks/race_calibration.py [--seeds 10] [--budgets 10,20] [--jobs 2] [--out F]
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
import sys
import time
import zlib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibration import _store_groups  # noqa: E402  (the other workloads' repeats, as calibration.py reads them)
from replay_product import TableSpace  # noqa: E402
from replay_tables import TABLES  # noqa: E402

from iotune.samplers import Outcome, TransferSampler  # noqa: E402
from iotune.samplers.race import Race  # noqa: E402
from iotune.study.tune import summarise_runs  # noqa: E402
from iotune.transfer import load_table  # noqa: E402
from iotune.variability.confidence import store_spread  # noqa: E402

OBJECTIVE = "time"
MIN_GAIN = 1.3
DRIFT_STEP = 0.15
TARGETS = {"coverage": 0.90, "decided_quiet": 0.80, "decided_drift": 0.50, "width_quiet": 1.5, "width_drift": 3.0,
           "bias": 0.10}


def geometric_truth(table) -> np.ndarray:
    values = table.values[OBJECTIVE]
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(values > 0, np.log(values), np.nan)
        truth = np.exp(np.nanmean(logs, axis=2))
    truth[table.failed_cells] = math.inf
    truth[~table.available] = np.nan
    return truth


def _case(table, replay, target: int, seed: int, budget: int, race: bool, load: str, truth) -> dict | None:
    rng = np.random.default_rng([seed, target, budget, zlib.crc32(table.name.encode())])
    available = [c for c in np.flatnonzero(table.available[target]) if np.isfinite(truth[c])]
    optimum = min(truth[c] for c in available)
    slow = [c for c in available if truth[c] >= MIN_GAIN * optimum]
    if not slow:
        return None
    baseline_cell = int(slow[rng.integers(len(slow))])
    candidates = replay.candidates(target)
    baseline = next(c for c in candidates if replay.index[c.key] == baseline_cell)
    # the sampler's default is the workload's first configuration: put the drawn baseline first by asking for it
    groups = _store_groups(table, target)
    sampler = TransferSampler(replay.space, seed=seed, budget=budget, workload=replay.workload(target),
                              prior=replay.prior(OBJECTIVE, target), objective=OBJECTIVE, candidates=candidates,
                              baseline=False)
    base_index = sampler.index[baseline.key]
    if race:
        sampler.race = Race(budget, baseline=base_index, elsewhere=store_spread(groups))
    level = 0.0
    draw = np.random.default_rng([seed, target, budget, 7])  # the same load path with and without the race

    def run(configuration) -> None:
        nonlocal level
        value = table.measure(OBJECTIVE, target, replay.index[configuration.key], rng)
        if load == "drift":
            level += DRIFT_STEP * float(draw.normal())
            value = None if value is None else value * math.exp(level)
        sampler.tell(configuration, Outcome("FAILED") if value is None else Outcome.of([value]))

    run(baseline)
    while len(sampler.observations) < budget and (batch := sampler.ask(1)):
        run(batch[0])
    rounds = [r.round for r in sampler.race.runs] if race else None
    summary = summarise_runs(sampler.observations, None, base_index, groups, rounds)
    if summary.best is None or summary.gain is None:
        return None
    best_cell = replay.index[sampler.candidates[summary.best_index].key]
    true_gain = truth[baseline_cell] / truth[best_cell]
    return {"table": table.name, "target": table.workloads[target], "seed": seed, "budget": budget,
            "race": race, "load": load, "runs": len(sampler.observations),
            "covered": bool(summary.gain.low <= true_gain <= summary.gain.high),
            "decided": bool(summary.gain.low > 1.0), "width": summary.gain.high / summary.gain.low,
            "stated_over_true": summary.gain.value / true_gain,
            "pick": bool(truth[best_cell] <= 1.05 * optimum), "confirmed": summary.confirmed}


def _run(task) -> list[dict]:
    name, target, seeds, budgets = task
    table = load_table(TABLES[name]())
    replay = TableSpace(table, TABLES[name]())
    truth = geometric_truth(table)[target]
    rows = []
    for budget in budgets:
        for load in ("quiet", "drift"):
            for race in (True, False):
                for seed in seeds:
                    row = _case(table, replay, target, seed, budget, race, load, truth)
                    if row is not None:
                        rows.append(row)
    return rows


def summarise(rows: list[dict]) -> list[dict]:
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault((row["table"], row["budget"], row["load"], row["race"]), []).append(row)
    out = []
    for (table, budget, load, race), group in sorted(groups.items()):
        out.append({"table": table, "budget": budget, "load": load, "race": race, "cases": len(group),
                    "coverage": float(np.mean([r["covered"] for r in group])),
                    "decided": float(np.mean([r["decided"] for r in group])),
                    "median_width": float(np.median([r["width"] for r in group])),
                    "median_stated_over_true": float(np.median([r["stated_over_true"] for r in group])),
                    "pick": float(np.mean([r["pick"] for r in group])),
                    "mean_runs": float(np.mean([r["runs"] for r in group]))})
    return out


def markdown(summary: list[dict]) -> str:
    lines = ["| table | budget | load | race | cases | gain covered | decided | median high/low | "
             "median stated/true | pick within 5% | runs spent |", "|---" * 11 + "|"]
    for s in summary:
        lines.append(f"| {s['table']} | {s['budget']} | {s['load']} | {'yes' if s['race'] else 'no'} | {s['cases']} "
                     f"| {s['coverage']:.2f} | {s['decided']:.2f} | {s['median_width']:.3g} | "
                     f"{s['median_stated_over_true']:.3f} | {s['pick']:.2f} | {s['mean_runs']:.1f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--budgets", default="10,20")
    parser.add_argument("--tables", default="hints,testbed,striping")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default=None, help="write rows and summary as JSON here")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    tasks = []
    for name in args.tables.split(","):
        table = load_table(TABLES[name]())
        tasks += [(name, target, list(range(args.seeds)), budgets) for target in range(len(table.workloads))]
    start = time.perf_counter()
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            rows = [row for result in pool.map(_run, tasks, chunksize=1) for row in result]
    else:
        rows = [row for task in tasks for row in _run(task)]
    summary = summarise(rows)
    print(f"race calibration: {len(rows)} cases, {args.seeds} seeds, budgets {args.budgets}, "
          f"{time.perf_counter() - start:.0f} s wall, {args.jobs} jobs, load average {os.getloadavg()[0]:.1f}; "
          f"Python {platform.python_version()}, {platform.machine()}, {multiprocessing.cpu_count()} cores")
    print(markdown(summary))
    if args.out:
        Path(args.out).write_text(json.dumps({"command": " ".join(sys.argv), "summary": summary, "rows": rows},
                                             indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
