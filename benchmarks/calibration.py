"""Calibration of what ``iotune tune`` states: do its 95 % intervals cover, is "separated" true when said?

Replays tuning on every measured table with repeats (the hints, testbed and
striping ground truths) many times.  A case is (table, target workload, seed, budget,
store): a baseline configuration drawn at random is run first (as ``tune``
runs the default), then the tuning engine (``iotune.transfer.TransferTuner``,
as ``iotune tune`` drives it) proposes runs until the budget is spent; a run
"measures" by drawing one recorded repeat of the cell at random.  ``store``:
``with-store`` gives the engine the other workloads' runs as its prior and the
noise estimate their repeats (as a study that measured them); ``alone`` gives
neither (a first tuning in an empty store: the conservative prior until a
configuration is run twice).  At the end the statements are made exactly as
``tune`` makes them (``iotune.study.tune.summarise_runs``) and judged by the
table's true means (mean over every recorded repeat of a cell):

- coverage of the best configuration's interval (true mean inside);
- coverage of the gain interval (true default / true best inside);
- "separated from the runner-up": how often it was said, and how often the
  best's true mean was then below the runner-up's;
- what that costs: the median width of the gain interval (high / low).

Failed runs are left out (a failed cell has no true mean); a case whose best
or baseline never succeeded states nothing and is not counted.

    .venv/bin/python benchmarks/calibration.py [--seeds 20] [--budgets 5,10] [--tables hints,testbed,striping] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import platform
import sys
import time
import zlib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from replay_tables import TABLES  # noqa: E402

from iotune.study.tune import summarise_runs  # noqa: E402
from iotune.transfer import Prior, TransferTuner, load_table  # noqa: E402

OBJECTIVE = "time"
TARGETS = {"coverage": 0.90, "separated": 0.95}


def _store_groups(table, target: int) -> list[tuple[int, list[float]]]:
    """The other workloads' repeated runs, as (workload, runs of one configuration)."""
    values = table.values[OBJECTIVE]
    groups = []
    for w in range(len(table.workloads)):
        if w == target:
            continue
        for c in range(len(table.configurations)):
            runs = values[w, c][~np.isnan(values[w, c])]
            if runs.size > 1:
                groups.append((w, runs.tolist()))
    return groups


def _case(table, target: int, seed: int, budget: int, with_store: bool, truth: np.ndarray) -> dict | None:
    rng = np.random.default_rng([seed, target, budget, int(with_store), zlib.crc32(table.name.encode())])
    available = np.flatnonzero(table.available[target] & np.isfinite(truth))
    prior = Prior.from_table(table, OBJECTIVE, exclude=[target]) if with_store else None
    engine = TransferTuner(table.configuration_features[available], prior,
                           table.workload_features[target] if with_store else None, seed=seed)
    baseline = int(rng.integers(available.size))
    observations = [(baseline, table.measure(OBJECTIVE, target, int(available[baseline]), rng))]
    while len(observations) < budget:
        suggestion = engine.suggest(observations)
        if not suggestion:
            break
        c = suggestion[0]
        observations.append((c, table.measure(OBJECTIVE, target, int(available[c]), rng)))
    summary = summarise_runs(observations, engine.best(observations), baseline,
                             _store_groups(table, target) if with_store else ())
    if summary.best is None or summary.gain is None:
        return None
    best, default = summary.best_index, baseline
    true_best, true_default = truth[available[best]], truth[available[default]]
    row = {"table": table.name, "target": table.workloads[target], "seed": seed, "budget": budget,
           "store": "with-store" if with_store else "alone", "best_runs": summary.best.runs,
           "spread": summary.noise.spread, "gain_width": summary.gain.high / summary.gain.low,
           "best_covered": bool(summary.best.low <= true_best <= summary.best.high),
           "gain_covered": bool(summary.gain.low <= true_default / true_best <= summary.gain.high),
           "separated": summary.separated is True, "separated_true": None}
    if summary.separated is True:
        row["separated_true"] = bool(true_best < truth[available[summary.runner_up_index]])
    return row


def _run(task) -> list[dict]:
    table_name, target, seeds, budgets, stores = task
    table = load_table(TABLES[table_name]())
    truth = table.truth(OBJECTIVE)[target]
    rows = []
    for budget in budgets:
        for with_store in stores:
            for seed in seeds:
                row = _case(table, target, seed, budget, with_store, truth)
                if row is not None:
                    rows.append(row)
    return rows


def summarise(rows: list[dict]) -> list[dict]:
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault((row["table"], row["store"], row["budget"]), []).append(row)
    out = []
    for (table, store, budget), group in sorted(groups.items()):
        said = [r for r in group if r["separated"]]
        out.append({"table": table, "store": store, "budget": budget, "cases": len(group),
                    "best_coverage": float(np.mean([r["best_covered"] for r in group])),
                    "gain_coverage": float(np.mean([r["gain_covered"] for r in group])),
                    "separated_said": len(said),
                    "separated_true": float(np.mean([r["separated_true"] for r in said])) if said else math.nan,
                    "single_run_best": float(np.mean([r["best_runs"] == 1 for r in group])),
                    "median_spread": float(np.median([r["spread"] for r in group])),
                    "median_gain_width": float(np.median([r["gain_width"] for r in group]))})
    return out


def markdown(summary: list[dict]) -> str:
    lines = ["| table | store | budget | cases | best's mean covered | gain covered | \"separated\" said | "
             "... and true | best from one run | median noise used | median gain interval high/low |",
             "|---" * 11 + "|"]
    for s in summary:
        true = "-" if math.isnan(s["separated_true"]) else f"{s['separated_true']:.2f}"
        lines.append(f"| {s['table']} | {s['store']} | {s['budget']} | {s['cases']} | {s['best_coverage']:.2f} | "
                     f"{s['gain_coverage']:.2f} | {s['separated_said']} | {true} | {s['single_run_best']:.2f} | "
                     f"±{s['median_spread']:.0%} | {s['median_gain_width']:.3g} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--budgets", default="5,10")
    parser.add_argument("--tables", default=",".join(t for t in TABLES if t != "scout"))
    parser.add_argument("--stores", default="with-store,alone")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default=None, help="write the summary as JSON here")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    stores = [s == "with-store" for s in args.stores.split(",")]
    tasks = []
    for name in args.tables.split(","):
        table = load_table(TABLES[name]())
        tasks += [(name, target, list(range(args.seeds)), budgets, stores) for target in range(len(table.workloads))]
    start = time.perf_counter()
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            rows = [row for result in pool.map(_run, tasks, chunksize=1) for row in result]
    else:
        rows = [row for task in tasks for row in _run(task)]
    summary = summarise(rows)
    print(f"calibration: {len(rows)} cases, {args.seeds} seeds, budgets {args.budgets}, "
          f"{time.perf_counter() - start:.0f} s wall, {args.jobs} jobs; Python {platform.python_version()}, "
          f"{platform.machine()}, {multiprocessing.cpu_count()} cores")
    print(markdown(summary))
    failed = [s for s in summary if s["best_coverage"] < TARGETS["coverage"] or s["gain_coverage"] < TARGETS["coverage"]
              or (s["separated_said"] and s["separated_true"] < TARGETS["separated"])]
    print(f"targets: coverage >= {TARGETS['coverage']}, separated true >= {TARGETS['separated']}: "
          + ("met in every row" if not failed else f"missed in {len(failed)} row(s)"))
    if args.out:
        Path(args.out).write_text(json.dumps({"command": " ".join(sys.argv), "summary": summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
