"""Leave-one-workload-out replay of budgeted tuning strategies on measured tables.

For every table, objective (time, cost), left-out target workload and seed,
each strategy runs up to 20 configurations of the target, one at a time; a run
"measures" by drawing one recorded repeat of the cell at random (a failed cell
fails).  The other workloads are the prior (only the transfer strategies use
it).  At each budget k the strategy's pick is the best of its first k runs by
their measured values (the engine's ``best``), judged by the table's true
means: regret = (true value of the pick - optimum) / optimum, no pick (every run
failed) = infinite regret.  Reported per table, strategy, objective and k: the
share of (target, seed) runs within 5 % of the optimum, and the median and 90th
percentile regret.  An added column, ``within_noise``, explains rather than
judges: the share of picks within 5 % *or* not separable from the optimum by
the table's own repeats (true-mean difference below two standard errors of
the two cells' repeat means; a table of single runs has no such margin, so
there it equals the within-5 % share).

    .venv/bin/python benchmarks/replay.py [--seeds 10] [--tables scout,testbed] [--strategies ...]
        [--encodings default|ordinal,linear,derived] [--jobs 2] [--out benchmarks/results/replay]

A table name may carry encoding variants (``scout~ordinal``, ``benchmarks/replay_encodings.py``); every
encoding of a table draws the same repeats.
    .venv/bin/python benchmarks/replay.py --markdown benchmarks/results/replay.json   (tables for the docs)
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import multiprocessing
import platform
import sys
import time
import zlib
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from replay_encodings import DEFAULT, has, split, table_spec  # noqa: E402
from replay_strategies import EXTRA, STRATEGIES  # noqa: E402
from replay_tables import TABLES  # noqa: E402

from iotune.transfer import load_table  # noqa: E402

BUDGETS = (3, 5, 10, 20)
WITHIN = 0.05


def _run_target(task):
    """Every strategy and seed on one (table, objective, target): rows of per-budget regrets."""
    table_name, objective, target, strategies, seeds, paired, prior_share = task
    spec = table_spec(table_name)
    table = load_table(spec)
    truth = table.truth(objective)[target]
    ok = np.isfinite(truth)
    optimum = truth[ok].min()
    best = int(np.flatnonzero(ok)[np.argmin(truth[ok])])
    standard_error = _standard_errors(table.values[objective][target])
    rows = []
    for name in strategies:
        strategy = (STRATEGIES | EXTRA)[name]
        for seed in seeds:
            # every encoding of a table draws the same repeats: its cells differ by the encoding alone
            base = split(table_name)[0]
            stream = f"{base}/{objective}" if paired else f"{base}/{objective}/{name}"
            rng = np.random.default_rng([seed, target, zlib.crc32(stream.encode())])
            seen, where = _with_prior_share(table, target, prior_share, seed, base)
            start = time.perf_counter()
            picks, runs = strategy(seen, spec, objective, where, seed, max(BUDGETS), rng)
            elapsed = time.perf_counter() - start
            for k in BUDGETS:
                pick = picks.get(k)
                regret = math.inf if pick is None or not np.isfinite(truth[pick]) else float(truth[pick] / optimum - 1.0)
                margin = 0.0 if pick is None else 2.0 * math.hypot(standard_error[pick], standard_error[best])
                inseparable = pick is not None and np.isfinite(truth[pick]) and truth[pick] - optimum <= margin
                rows.append({"table": table_name, "objective": objective, "strategy": name,
                             "target": table.workloads[target], "seed": seed, "k": k,
                             "pick": None if pick is None else table.configurations[pick],
                             "regret": regret, "within_noise": bool(regret <= WITHIN or inseparable),
                             "runs": min(runs, k), "seconds": elapsed})
    return rows


def _with_prior_share(table, target: int, share: float, seed: int, base: str):
    """The table the strategies see, and the target's index in it: with ``share`` < 1, the target and a random
    share (at least 2) of the other workloads, drawn per (seed, target) and the same for every strategy,
    objective and encoding of a table; so on a table of single runs each seed is another prior."""
    if share >= 1.0:
        return table, target
    others = [w for w in range(len(table.workloads)) if w != target]
    rng = np.random.default_rng([seed, target, zlib.crc32(f"{base}/prior".encode())])
    kept = sorted(rng.choice(others, size=max(2, math.ceil(share * len(others))), replace=False).tolist())
    rows = sorted(kept + [target])
    subset = replace(table, workloads=[table.workloads[w] for w in rows],
                     workload_features=table.workload_features[rows],
                     values={name: values[rows] for name, values in table.values.items()},
                     failed=table.failed[rows], present=table.present[rows],
                     workload_points=[table.workload_points[w] for w in rows] if table.workload_points else [])
    return subset, rows.index(target)


def _standard_errors(values: np.ndarray) -> np.ndarray:
    """Standard error of each configuration's mean over its repeats (configurations x repeats; NaN: failed
    or missing); 0 with fewer than two repeats."""
    counts = np.sum(~np.isnan(values), axis=1)
    se = np.zeros(len(values))
    many = counts >= 2
    se[many] = np.nanstd(values[many], axis=1, ddof=1) / np.sqrt(counts[many])
    return se


def summarise(rows):
    """Share within 5 %, median and p90 regret per (table, objective, strategy, k)."""
    groups = {}
    for row in rows:
        groups.setdefault((row["table"], row["objective"], row["strategy"], row["k"]), []).append(row)
    summary = []
    for (table, objective, strategy, k), group in groups.items():
        regrets = np.array([r["regret"] for r in group])
        summary.append({"table": table, "objective": objective, "strategy": strategy, "k": k,
                        "within_5pct": float(np.mean(regrets <= WITHIN)),
                        "within_noise": float(np.mean([r["within_noise"] for r in group])),
                        "median_regret": float(np.quantile(regrets, 0.5, method="inverted_cdf")),
                        "p90_regret": float(np.quantile(regrets, 0.9, method="inverted_cdf")),
                        "cases": len(group),
                        "seconds_per_run": float(np.mean([r["seconds"] for r in group]))})
    return summary


def _print(summary, strategies):
    def cell(entry):
        return (f"{entry['within_5pct']:4.2f} ({entry['within_noise']:4.2f}) {entry['median_regret']:5.3f} "
                f"{_fmt(entry['p90_regret'])}")

    index = {(s["table"], s["objective"], s["strategy"], s["k"]): s for s in summary}
    tables = sorted({s["table"] for s in summary})
    for table in tables:
        for objective in ("time", "cost"):
            if not any(s["table"] == table and s["objective"] == objective for s in summary):
                continue
            cases = next(s["cases"] for s in summary if s["table"] == table and s["objective"] == objective)
            print(f"\n{table} / {objective}  ({cases} cases per cell: targets x seeds)   "
                  "each k: share within 5% (or within repeat noise), median regret, p90 regret")
            print(f"{'strategy':<22}" + "".join(f"{'k=' + str(k):<27}" for k in BUDGETS) + "s/case")
            for strategy in strategies:
                entries = [index.get((table, objective, strategy, k)) for k in BUDGETS]
                if None in entries:
                    continue
                print(f"{strategy:<22}" + "".join(f"{cell(e):<27}" for e in entries)
                      + f"{entries[0]['seconds_per_run']:.3f}")


def markdown(summary) -> str:
    """One markdown table per (table, objective): engine, random, GP-EI, the best other strategy (not an engine
    variant; by within-5 % share at k=10, then k=5) and the exhaustive reference; within 5 % (within repeat noise) at
    each k, median and p90 regret at k=10."""
    index = {(s["table"], s["objective"], s["strategy"], s["k"]): s for s in summary}
    fixed = ("engine", "random", "gp-ei")
    out = []
    for table in sorted({s["table"] for s in summary}):
        for objective in ("time", "cost"):
            present = sorted({s["strategy"] for s in summary if s["table"] == table and s["objective"] == objective})
            if not present:
                continue
            others = [s for s in present if s not in fixed + ("exhaustive",) and not s.startswith("engine")]
            best = max(others, key=lambda s: (index[(table, objective, s, 10)]["within_5pct"],
                                              index[(table, objective, s, 5)]["within_5pct"]), default=None)
            rows = [s for s in fixed if s in present] + ([best] if best else []) \
                + (["exhaustive"] if "exhaustive" in present else [])
            cases = index[(table, objective, rows[0], 10)]["cases"]
            out.append(f"\n**{table} / {objective}** ({cases} cases per cell)\n")
            out.append("| strategy | " + " | ".join(f"k={k}" for k in BUDGETS)
                       + " | median regret k=10 | p90 regret k=10 |")
            out.append("|---" * (len(BUDGETS) + 3) + "|")
            for strategy in rows:
                cells = []
                for k in BUDGETS:
                    e = index[(table, objective, strategy, k)]
                    cells.append(f"{e['within_5pct']:.2f} ({e['within_noise']:.2f})")
                e = index[(table, objective, strategy, 10)]
                label = strategy + (" (best other)" if strategy == best else "")
                out.append(f"| {label} | " + " | ".join(cells) + f" | {_fmt(e['median_regret']).strip()} | "
                           f"{_fmt(e['p90_regret']).strip()} |")
    return "\n".join(out) + "\n\n" + overview(summary, index)


def overview(summary, index) -> str:
    """Every strategy on every (table, objective): share within 5 % of the optimum at k=5 / k=10."""
    columns = [(table, objective) for table in sorted({s["table"] for s in summary}) for objective in ("time", "cost")
               if any(s["table"] == table and s["objective"] == objective for s in summary)]
    strategies = list(dict.fromkeys(s["strategy"] for s in summary))
    out = ["**Every strategy**: share within 5 % of the optimum at k=5 / k=10\n",
           "| strategy | " + " | ".join(f"{t} {o}" for t, o in columns) + " |",
           "|---" * (len(columns) + 1) + "|"]
    for strategy in strategies:
        cells = []
        for table, objective in columns:
            five, ten = index.get((table, objective, strategy, 5)), index.get((table, objective, strategy, 10))
            cells.append("-" if five is None else f"{five['within_5pct']:.2f} / {ten['within_5pct']:.2f}")
        out.append(f"| {strategy} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def _fmt(value: float) -> str:
    return "  inf" if math.isinf(value) else f"{value:5.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--tables", default=",".join(TABLES))
    parser.add_argument("--encodings", default="",
                        help="comma-separated encoding variants run beside each table's own (replay_encodings: "
                             "ordinal, linear, derived, joined with +; 'default': each alone)")
    parser.add_argument("--objectives", default="time,cost")
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument("--targets", default=None, help="comma-separated target indices (default: all)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--paired", action="store_true",
                        help="every strategy draws the same repeats (a paired comparison of variants on a noisy "
                             "table; by default each strategy has draws of its own)")
    parser.add_argument("--prior-share", type=float, default=1.0,
                        help="each (target, seed) sees the target and this share of the other workloads, drawn at "
                             "random (default 1: all); below 1 every seed is another prior, even on a table of "
                             "single runs")
    parser.add_argument("--out", default=None, help="write OUT.csv (every case) and OUT.json (summary)")
    parser.add_argument("--markdown", default=None, metavar="JSON",
                        help="print the markdown tables of a summary written by --out, and run nothing")
    args = parser.parse_args()
    if args.markdown:
        print(markdown(json.loads(Path(args.markdown).read_text())["summary"]))
        return
    strategies = args.strategies.split(",")
    unknown = [s for s in strategies if s not in STRATEGIES | EXTRA]
    if unknown:
        parser.error(f"unknown strategies {unknown}; known: {', '.join(STRATEGIES | EXTRA)}")
    encodings = DEFAULT if args.encodings == "default" else ("",) + tuple(e for e in args.encodings.split(",") if e)
    names = [name + ("~" + e if e else "") for name in args.tables.split(",") for e in encodings
             if all(has(name, v) for v in e.split("+") if v)]
    tasks = []
    for table_name in names:
        try:
            table = load_table(table_spec(table_name))
        except ValueError as error:
            parser.error(str(error))
        targets = range(len(table.workloads)) if args.targets is None else [int(t) for t in args.targets.split(",")]
        for objective in [o for o in args.objectives.split(",") if o in table.objectives]:
            for target in targets:
                tasks.append((table_name, objective, target, strategies, list(range(args.seeds)), args.paired,
                              args.prior_share))
    start = time.perf_counter()
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            results = pool.map(_run_target, tasks, chunksize=1)
    else:
        results = [_run_target(task) for task in tasks]
    rows = [row for result in results for row in result]
    summary = summarise(rows)
    print(f"replay: {len(tasks)} (table, objective, target) tasks x {args.seeds} seeds, "
          f"{time.perf_counter() - start:.0f} s wall, {args.jobs} jobs; {platform.python_version()}, "
          f"{platform.machine()}")
    _print(summary, strategies)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out.with_suffix(".csv"), "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        out.with_suffix(".json").write_text(json.dumps({"command": " ".join(sys.argv), "summary": summary},
                                                       indent=1, allow_nan=True))


if __name__ == "__main__":
    main()
