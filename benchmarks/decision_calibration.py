"""Calibration of the one decision on a measured workload (``iotune results``, ``recommend``, the report, the
demo): is "ahead of every other beyond the noise" true when said, does the tied set hold the fastest?

Every workload of every measured table with repeats (hints, testbed, striping), many times: each of the
workload's configurations that never failed is "measured" ``repeats`` times, drawing that many of the
cell's recorded repeats without replacement; the decision is made on those runs exactly as iotune makes it
(``iotune.recommend.decision``: fastest mean first, ``measured_noise``, ``tied_with_best``) and judged by
the table's true means (mean over every recorded repeat of a cell):

- "separated" said: the best's true mean is then below every other configuration's;
- the tied set holds the configuration with the lowest true mean (what "any of the tied may be the
  fastest" claims);
- what that costs: the median size of the tied set.

The rule before (Welch's test per pair, each side's variance its own 2-3 repeats, no allowance for the best
being picked as the lowest) is run on the same draws for comparison.

    .venv/bin/python benchmarks/decision_calibration.py [--seeds 50] [--repeats 2,3] [--tables hints,testbed,striping]
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from replay_tables import TABLES  # noqa: E402

from iotune.analysis import student_t_quantile  # noqa: E402
from iotune.recommend.decision import Measured, fastest_first, measured_noise, tied_with_best  # noqa: E402
from iotune.transfer import load_table  # noqa: E402

OBJECTIVE = "time"
TARGETS = {"separated true": 0.95, "fastest in the tied set": 0.90}


def welch_tied(ranked: list[Measured], confidence: float = 0.95) -> list[bool]:
    """The rule before: Welch's test on log times, each side's own variance, no selection allowance."""
    best = ranked[0]
    out = []
    for other in ranked[1:]:
        va, vb = statistics.variance(best.logs) / best.n, statistics.variance(other.logs) / other.n
        gap = abs(statistics.fmean(other.logs) - statistics.fmean(best.logs))
        if va + vb == 0:
            out.append(gap == 0)
            continue
        df = (va + vb) ** 2 / (va * va / (best.n - 1) + vb * vb / (other.n - 1))
        out.append(gap < student_t_quantile(0.5 + confidence / 2, df) * math.sqrt(va + vb))
    return out


def cases(table, repeats: int, seeds: int) -> list[dict]:
    values, present = table.values[OBJECTIVE], table.present
    complete = present.any(axis=2) & ~table.failed_cells
    truth = table.truth(OBJECTIVE)
    rows = []
    for w in range(len(table.workloads)):
        usable = [c for c in np.flatnonzero(complete[w]) if present[w, c].sum() >= repeats]
        if len(usable) < 2:
            continue
        fastest = min(usable, key=lambda c: truth[w, c])
        for seed in range(seeds):
            rng = np.random.default_rng([seed, w, repeats])
            measured = []
            for c in usable:
                runs = values[w, c][np.flatnonzero(present[w, c])]
                measured.append(Measured({"c": int(c)}, str(c), rng.choice(runs, repeats, replace=False).tolist()))
            ranked = fastest_first(measured)
            declared = int(ranked[0].key)
            others_true = min(truth[w, int(m.key)] for m in ranked[1:])
            for rule, verdicts in (("iotune", tied_with_best(ranked, measured_noise(ranked))),
                                   ("welch, own variance", welch_tied(ranked))):
                tied = {declared} | {int(m.key) for m, same in zip(ranked[1:], verdicts, strict=True) if same}
                separated = len(tied) == 1
                rows.append({"table": table.name, "workload": table.workloads[w], "repeats": repeats,
                             "seed": seed, "rule": rule, "configurations": len(usable), "tied": len(tied),
                             "separated": separated,
                             "separated_true": bool(truth[w, declared] < others_true) if separated else None,
                             "fastest_in_tied": bool(fastest in tied)})
    return rows


def summarise(rows: list[dict]) -> list[dict]:
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault((row["table"], row["repeats"], row["rule"]), []).append(row)
    out = []
    for (table, repeats, rule), group in sorted(groups.items()):
        said = [r for r in group if r["separated"]]
        out.append({"table": table, "repeats": repeats, "rule": rule, "cases": len(group),
                    "separated_said": len(said),
                    "separated_true": float(np.mean([r["separated_true"] for r in said])) if said else math.nan,
                    "fastest_in_tied": float(np.mean([r["fastest_in_tied"] for r in group])),
                    "median_tied": float(np.median([r["tied"] for r in group])),
                    "median_configurations": float(np.median([r["configurations"] for r in group]))})
    return out


def markdown(summary: list[dict]) -> str:
    lines = ["| table | repeats | rule | cases | \"separated\" said | ... and true | fastest in the tied set | "
             "median tied | median configurations |", "|---" * 9 + "|"]
    for s in summary:
        true = "-" if math.isnan(s["separated_true"]) else f"{s['separated_true']:.2f}"
        lines.append(f"| {s['table']} | {s['repeats']} | {s['rule']} | {s['cases']} | {s['separated_said']} | {true} | "
                     f"{s['fastest_in_tied']:.2f} | {s['median_tied']:g} | {s['median_configurations']:g} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--repeats", default="2,3")
    parser.add_argument("--tables", default="hints,testbed,striping")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "decision_calibration.json")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rows = []
    for name in args.tables.split(","):
        if name not in TABLES:
            print(f"skipping {name}: not in this checkout", file=sys.stderr)
            continue
        table = load_table(TABLES[name]())
        for repeats in (int(r) for r in args.repeats.split(",")):
            rows += cases(table, repeats, args.seeds)
    summary = summarise(rows)
    print(markdown(summary))
    seconds = time.perf_counter() - started
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"command": " ".join(["benchmarks/decision_calibration.py", *sys.argv[1:]]),
                                    "machine": f"{platform.machine()}, {platform.python_version()}",
                                    "seconds": round(seconds, 1), "targets": TARGETS, "summary": summary},
                                   indent=1) + "\n")
    print(f"{len(rows)} cases in {seconds:.0f} s; summary in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
