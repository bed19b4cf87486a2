"""Issue 31's rule for a default, from the replay's per-case rows: no cell worse than the start beyond its seed spread.

    .venv/bin/python benchmarks/replay_rule.py ROWS.csv [ROWS.csv ...] --start engine-given \
        --candidates engine,engine-both,... [--tables scout,cherrypick,hints,testbed,striping]

ROWS are the CSVs ``replay.py --out`` writes (one row per table, objective, strategy, target, seed and k), of
paired runs (``--paired``: every strategy drew the same repeats).  The rule reads each table's base encoding; the
spread reads its encoding variants (``scout~ordinal``...) where a candidate was run under them.

A cell is a (table, objective, k).  Per seed, a strategy's share is the share of targets within 5 % of the
optimum; a candidate is **worse beyond the seed spread** in a cell when its mean share over the seeds is below
the start's by more than twice the standard error of the paired per-seed differences (on a table where every
seed gives the same picks, scout and cherrypick, that error is 0: a single case lower is worse).

The issue's other rule, **encoding spread at most 0.10**: in a cell, the largest minus the smallest mean share over
the encodings the candidate was run under (the same seeds).  A breach counts as a worse cell.

Leave one table out: for each table X, the candidate chosen on the other tables is the one with no worse cell
(nor spread breach) there (if several, the highest mean share there; if none, the fewest, then the highest
mean), and it is judged on X: its worse cells and breaches on X and its mean share on X against the start's.
"""

from __future__ import annotations

import argparse
import csv
import math
from collections import defaultdict

BUDGETS = (3, 5, 10, 20)
WITHIN = 0.05


SPREAD = 0.10


def load(paths, strategies) -> dict:
    """(table, objective, strategy, k) -> {seed: [within 5 % per target]}; a variant's table is ``scout~ordinal``."""
    out: dict = defaultdict(lambda: defaultdict(list))
    seen: dict = {}
    for path in paths:
        with open(path, newline="") as handle:
            for row in csv.DictReader(handle):
                if row["strategy"] not in strategies:
                    continue
                key = (row["table"], row["objective"], row["strategy"], int(row["k"]))
                case = key + (row["target"], int(row["seed"]))
                if seen.setdefault(case, path) != path:
                    continue  # a case in several files: the first file's
                out[key][int(row["seed"])].append(float(row["regret"]) <= WITHIN)
    return out


def compare(rows: dict, candidate: str, start: str, table: str, objective: str, k: int):
    """(candidate's mean share, start's mean share, standard error of the paired difference) over common seeds."""
    mine, theirs = rows.get((table, objective, candidate, k)), rows.get((table, objective, start, k))
    if not mine or not theirs:
        return None
    seeds = sorted(set(mine) & set(theirs))
    diffs = [sum(mine[s]) / len(mine[s]) - sum(theirs[s]) / len(theirs[s]) for s in seeds]
    a = sum(sum(mine[s]) / len(mine[s]) for s in seeds) / len(seeds)
    b = sum(sum(theirs[s]) / len(theirs[s]) for s in seeds) / len(seeds)
    if len(seeds) < 2:
        return a, b, 0.0
    mean = sum(diffs) / len(diffs)
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1))
    return a, b, sd / math.sqrt(len(seeds))


def cells(rows: dict, tables) -> list[tuple[str, str, int]]:
    return sorted({(t, o, k) for t, o, _, k in rows if t in tables})


def encoding_spread(rows: dict, candidate: str, table: str, objective: str, k: int) -> float | None:
    """Largest minus smallest mean share over the encodings of ``table`` the candidate ran (common seeds)."""
    runs = [v for (t, o, s, kk), v in rows.items()
            if t.split("~")[0] == table and o == objective and s == candidate and kk == k]
    if len(runs) < 2:
        return None
    seeds = set.intersection(*(set(r) for r in runs))
    if not seeds:
        return None
    means = [sum(sum(r[s]) / len(r[s]) for s in seeds) / len(seeds) for r in runs]
    return max(means) - min(means)


def verdict(rows, candidate, start, tables):
    """(worse cells [(table, objective, k, candidate, start)], mean share of the candidate, of the start)."""
    worse, a_sum, b_sum, n = [], 0.0, 0.0, 0
    for table, objective, k in cells(rows, tables):
        result = compare(rows, candidate, start, table, objective, k)
        if result is None:
            continue
        a, b, error = result
        a_sum, b_sum, n = a_sum + a, b_sum + b, n + 1
        if a < b - 2.0 * error - 1e-9:
            worse.append((table, objective, k, a, b))
        gap = encoding_spread(rows, candidate, table, objective, k)
        if gap is not None and gap > SPREAD + 1e-9:
            worse.append((table, objective + " spread", k, gap, SPREAD))
    return worse, (a_sum / n if n else math.nan), (b_sum / n if n else math.nan)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", nargs="+")
    parser.add_argument("--start", default="engine-given")
    parser.add_argument("--candidates", required=True, help="comma-separated; the first is today's default")
    parser.add_argument("--tables", default="scout,cherrypick,hints,testbed,striping")
    parser.add_argument("--fill", default="", metavar="A,B=SOURCE",
                        help="cells (table, objective) A and B were not run on are SOURCE's: for variants that act "
                             "only under a price, whose time cells are SOURCE's by construction")
    args = parser.parse_args()
    candidates = args.candidates.split(",")
    tables = args.tables.split(",")
    filled, _, source = args.fill.partition("=")
    rows = load(args.rows, set(candidates) | {args.start} | ({source} if source else set()))
    for name in filled.split(",") if source else []:
        have = {(t, o) for t, o, s, _ in rows if s == name}
        for (t, o, s, k), seeds in list(rows.items()):
            if s == source and (t, o) not in have:
                rows[(t, o, name, k)] = seeds
    print(f"**Cells worse than the start ({args.start}) beyond the seed spread** (candidate / start share)\n")
    print("| candidate | worse cells | mean share (start) |")
    print("|---|---|---|")
    for candidate in candidates:
        worse, a, b = verdict(rows, candidate, args.start, tables)
        listed = "; ".join(f"{t} {o} k={k}: {x:.2f} / {y:.2f}" for t, o, k, x, y in worse) or "none"
        print(f"| {candidate} | {listed} | {a:.3f} ({b:.3f}) |")
    print("\n**Leave one table out** (chosen on the others by the rule, then the mean share; judged on the held-out "
          "table)\n")
    print("| held-out table | chosen on the others (worse cells there, mean share there) | on the held-out table: "
          "worse cells | mean share (start) |")
    print("|---|---|---|---|")
    for held in tables:
        others = [t for t in tables if t != held]
        scored = []
        for i, candidate in enumerate(candidates):
            worse, a, _ = verdict(rows, candidate, args.start, others)
            scored.append((len(worse), -a, i, candidate))
        count, minus_mean, _, chosen = min(scored)
        worse, a, b = verdict(rows, chosen, args.start, [held])
        listed = "; ".join(f"{o} k={k}: {x:.2f} / {y:.2f}" for _, o, k, x, y in worse) or "none"
        print(f"| {held} | {chosen} ({count}, {-minus_mean:.3f}) | {listed} | {a:.3f} ({b:.3f}) |")


if __name__ == "__main__":
    main()
