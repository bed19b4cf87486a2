"""Issue 31's tables from replay summaries: every encoding of every table, the spread across encodings, the peers,
and defaults chosen leave-one-table-out.

    .venv/bin/python benchmarks/replay_report.py benchmarks/results/replay_issue31*.json \
        [--peers benchmarks/results/replay_issue23_closing.json ...] \
        [--start benchmarks/results/replay_issue23_closing.json] [--variants engine,engine-given,...] [--compact]

Summaries are those ``replay.py --out`` writes (tables named ``scout~ordinal`` for an encoding variant).  A
(table, strategy) pair found in several files is taken from the one with the most cases.  ``--compact``: one row
per table and objective, the engine's cells (base, lowest and highest encoding) beside the best peer's.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

BUDGETS = (3, 5, 10, 20)
ENCODINGS = ("", "ordinal", "linear", "derived")
PEERS = ("gp-ei", "tpe", "forest", "cart")
SEEN: dict = {}  # (table, encoding, objective, strategy, cases) -> {k: summary entry}: every run loaded


def load(paths, only=None, cells=None, record: bool = True) -> dict:
    """(table, encoding, objective, strategy) -> {k: summary entry}, the most cases winning (``only``: these
    strategies only)."""
    cells = {} if cells is None else cells
    for path in paths:
        for entry in json.loads(Path(path).read_text())["summary"]:
            if only is not None and entry["strategy"] not in only:
                continue
            table, _, encoding = entry["table"].partition("~")
            key = (table, encoding, entry["objective"], entry["strategy"])
            if record:
                SEEN.setdefault(key + (entry["cases"],), {})[entry["k"]] = entry
            have = cells.get(key, {}).get(entry["k"])
            if have is None or entry["cases"] > have["cases"]:
                cells.setdefault(key, {})[entry["k"]] = entry
    return cells


def share(cell: dict, k: int) -> float:
    return cell[k]["within_5pct"]


def spread(cells: dict, table: str, objective: str, strategy: str) -> dict[int, float] | None:
    """Largest minus smallest share over the encodings, at each k, from runs of as many cases each (the same
    seeds: cells of 10 seeds against cells of 2 would differ by the seeds too)."""
    encodings = [e for e in ENCODINGS if (table, e, objective, strategy) in cells]
    counts = [{c for (t, e2, o, s, c) in SEEN if (t, e2, o, s) == (table, e, objective, strategy)} for e in encodings]
    common = set.intersection(*counts) if counts else set()
    if len(encodings) < 2 or not common:
        return None
    present = [SEEN[(table, e, objective, strategy, max(common))] for e in encodings]
    return {k: max(share(c, k) for c in present) - min(share(c, k) for c in present) for k in BUDGETS}


def tables(cells: dict, start: dict | None, strategies) -> str:
    out = []
    pairs = sorted({(t, o) for t, _, o, _ in cells}, key=lambda p: (p[0], p[1] != "time"))
    for table, objective in pairs:
        out.append(f"\n**{table} / {objective}**: share within 5 % at k = 3 / 5 / 10 / 20 (cases per cell)\n")
        out.append("| strategy | encoding | k=3 | k=5 | k=10 | k=20 | cases |")
        out.append("|---|---|---|---|---|---|---|")
        if start and (table, "", objective, "engine") in start:
            cell = start[(table, "", objective, "engine")]
            out.append("| start (issue 23 closing) | base | " + " | ".join(f"{share(cell, k):.2f}" for k in BUDGETS)
                       + f" | {cell[10]['cases']} |")
        for strategy in strategies:
            for encoding in ENCODINGS:
                cell = cells.get((table, encoding, objective, strategy))
                if cell is None or any(k not in cell for k in BUDGETS):
                    continue
                label = f"**{strategy}**" if strategy == "engine" else strategy
                out.append(f"| {label} | {encoding or 'base'} | " + " | ".join(f"{share(cell, k):.2f}" for k in BUDGETS)
                           + f" | {cell[10]['cases']} |")
            gap = spread(cells, table, objective, strategy)
            if gap is not None:
                out.append(f"| {strategy} | *spread (same seeds)* | "
                           + " | ".join(f"*{gap[k]:.2f}*" for k in BUDGETS) + " | |")
    return "\n".join(out)


def leave_one_table_out(cells: dict, variants) -> str:
    """For each table X: the variant with the highest mean share (every objective, encoding and k of the other
    tables where every variant was measured), and its cells on X beside the default's."""
    names = sorted({t for t, _, _, _ in cells})
    keys = sorted({(t, e, o) for t, e, o, s in cells if all((t, e, o, v) in cells for v in variants)})

    def mean(variant, tables_):
        values = [share(cells[(t, e, o, variant)], k) for t, e, o in keys if t in tables_ for k in BUDGETS]
        return sum(values) / len(values) if values else float("nan")

    out = ["| held-out table | chosen on the others (its mean there) | "
           + " | ".join(f"{v} on the held-out table" for v in variants) + " |",
           "|---|---|" + "---|" * len(variants)]
    for held in names:
        others = [t for t in names if t != held]
        if not any(t == held for t, _, _ in keys):
            continue
        chosen = max(variants, key=lambda v: (mean(v, others), v == variants[0]))
        out.append(f"| {held} | {chosen} ({mean(chosen, others):.3f}) | "
                   + " | ".join(f"{mean(v, [held]):.3f}" for v in variants) + " |")
    return "\n".join(out)


def behind(cells: dict, strategy: str = "engine") -> str:
    """Every (table, objective, encoding, k) where a peer's share is above the strategy's (peers in the same
    encoding, else in the base one: TPE reads raw values, so only derived features change its space)."""
    out = []
    for (table, encoding, objective, name), cell in sorted(cells.items()):
        if name != strategy:
            continue
        for peer in PEERS:
            other = cells.get((table, encoding, objective, peer)) or cells.get((table, "", objective, peer))
            if other is None:
                continue
            for k in BUDGETS:
                if k in cell and k in other and share(other, k) > share(cell, k):
                    out.append(f"{table}{'~' + encoding if encoding else ''} {objective} k={k}: {peer} "
                               f"{share(other, k):.2f} > {share(cell, k):.2f}")
    return "\n".join(f"- {line}" for line in out) or "- none"


def compact(cells: dict, strategy: str = "engine") -> str:
    """One row per (table, objective): the strategy's share at each k on the base encoding with its lowest and
    highest over the encodings, and the best peer's highest share over peers and encodings (which peer)."""
    out = ["| table / objective | " + strategy + ", base [lowest-highest encoding] at k = 3 / 5 / 10 / 20 | "
           "best peer, any encoding | encoding spread |", "|---|---|---|---|"]
    pairs = sorted({(t, o) for t, _, o, s in cells if s == strategy}, key=lambda p: (p[0], p[1] != "time"))
    for table, objective in pairs:
        own = {e: cells[(table, e, objective, strategy)] for e in ENCODINGS if (table, e, objective, strategy) in cells}
        peers = [(name, cell) for (t, _, o, name), cell in cells.items()
                 if (t, o) == (table, objective) and name in PEERS]
        mine, theirs, gaps = [], [], []
        for k in BUDGETS:
            values = [share(c, k) for c in own.values()]
            base = share(own[""], k) if "" in own else float("nan")
            mine.append(f"{base:.2f} [{min(values):.2f}-{max(values):.2f}]")
            gaps.append(max(values) - min(values))
            if peers:
                name, cell = max(peers, key=lambda p: share(p[1], k))
                theirs.append(f"{share(cell, k):.2f} {name}")
        out.append(f"| {table} / {objective} | " + " / ".join(mine) + " | " + (" / ".join(theirs) or "-")
                   + f" | {max(gaps):.2f} |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("summaries", nargs="+")
    parser.add_argument("--peers", nargs="*", default=[],
                        help="earlier summaries to take the peers from (and nothing else)")
    parser.add_argument("--start", default=None, help="the starting point's summary (its engine, base encoding)")
    parser.add_argument("--strategies", default="engine,engine-given," + ",".join(PEERS))
    parser.add_argument("--variants", default="engine,engine-given",
                        help="engine variants for the leave-one-table-out choice (the first is the default)")
    parser.add_argument("--compact", action="store_true",
                        help="one row per table and objective: the engine's cells and the best peer's, nothing else")
    args = parser.parse_args()
    cells = load(args.summaries)
    peers = load(args.peers, only=PEERS)
    for key, cell in peers.items():
        if key not in cells or cell[10]["cases"] > cells[key][10]["cases"]:
            cells[key] = cell
    start = load([args.start], record=False) if args.start else None
    for (table, encoding, objective, strategy), cell in (start or {}).items():
        # the starting point's engine is the engine before this issue, `engine-given`, on the base encoding
        key = (table, encoding, objective, "engine-given")
        if strategy == "engine" and (key not in cells or cell[10]["cases"] > cells[key][10]["cases"]):
            cells[key] = cell
    if args.compact:
        print(compact(cells))
        print("\n**Where a peer is ahead of the engine**\n")
        print(behind(cells))
        return
    print(tables(cells, start, args.strategies.split(",")))
    print("\n**Where a peer is ahead of the engine**\n")
    print(behind(cells))
    print("\n**Leave one table out**\n")
    print(leave_one_table_out(cells, args.variants.split(",")))


if __name__ == "__main__":
    main()
