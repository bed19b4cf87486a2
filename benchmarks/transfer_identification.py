"""What a table's other workloads can tell a target, and how fast the engine finds the ones that can.

    .venv/bin/python benchmarks/transfer_identification.py [--tables scout,cherrypick] [--objective cost]
        [--runs 5] [--out benchmarks/results/transfer_identification]

Leave one workload out, as the replay does.  For each target, the candidates within 5 % of its optimum (the
replay's "found"), and for each other workload the rank, in its own order of the target's candidates, of the
first of them: a tuner that ran one other workload's order would find the target's optimum in that many runs.

- ``best donor within k``: the share of targets for which the best such workload, chosen in hindsight, finds
  it within k runs (what transfer from a single workload could reach if it knew which one to follow);
  ``consensus within k``: the same for the other workloads' mean order (centred logs).
- ``good donors``: the other workloads that find it within five runs (the best one when none does); their share
  of the other workloads is what a uniform weight puts on them.  The engine (``TransferTuner``, today's defaults,
  the replay's known price) then runs the target; after each of its first ``--runs`` runs, the weight its experts
  put on the good donors (likelihood of the target's runs under each workload's fitted map, times the workload
  similarity) and whether its heaviest expert is one.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from replay import WITHIN  # noqa: E402
from replay_encodings import table_spec  # noqa: E402
from replay_strategies import known_price  # noqa: E402

from iotune.transfer import Prior, TransferTuner, load_table  # noqa: E402

GOOD_WITHIN = 5
BUDGETS = (3, 5, 10)


def first_found(order_values: np.ndarray, available: np.ndarray, found: np.ndarray) -> int:
    """Runs an order by ``order_values`` (lowest first; NaN or inf last) over the available candidates takes to
    reach one of ``found``."""
    values = np.where(available & np.isfinite(order_values), order_values, np.inf)
    order = [c for c in np.argsort(values, kind="stable") if available[c]]
    return next((i + 1 for i, c in enumerate(order) if found[c]), len(order) + 1)


def one_target(table, objective: str, target: int, runs: int) -> dict:
    truth = table.truth(objective)
    available = table.available[target]  # a run of a candidate where the target fails is a run too
    ran = available & np.isfinite(truth[target])
    optimum = truth[target][ran].min()
    found = ran & (truth[target] <= (1.0 + WITHIN) * optimum)
    others = [j for j in range(len(table.workloads)) if j != target]
    ranks = np.array([first_found(truth[j], available, found) for j in others])
    logs = np.where(available & np.isfinite(truth[others]), np.log(truth[others]), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # candidates every other workload failed on: NaN, last
        consensus = np.nanmean(logs - np.nanmean(logs, axis=1, keepdims=True), axis=0)
    good = ranks <= max(int(ranks.min()), GOOD_WITHIN)

    candidates = np.flatnonzero(table.available[target])
    tuner = TransferTuner(table.configuration_features[candidates],
                          Prior.from_table(table, objective, exclude=[target]), table.workload_features[target],
                          seed=0, price=known_price(table, objective))
    if tuner.prior.workloads != len(others):
        raise SystemExit(f"{table.workloads[target]}: the engine kept {tuner.prior.workloads} of the {len(others)} "
                         "other workloads (some ran too few of its candidates): their weights cannot be matched")
    rng = np.random.default_rng([0, target])
    observations, weight_on_good, heaviest_good = [], [], []
    for _ in range(runs):
        suggestion = tuner.suggest(observations)
        if not suggestion:
            break
        c = suggestion[0]
        observations.append((c, table.measure(objective, target, int(candidates[c]), rng)))
        summary = tuner._summarise(observations)
        _, log_weights = tuner._experts(summary, tuner._noise(summary))
        weights = tuner._normalise(log_weights)
        weight_on_good.append(float(weights[good].sum()))
        heaviest_good.append(bool(good[int(np.argmax(weights))]))
    return {"target": table.workloads[target], "found": int(found.sum()), "candidates": int(available.sum()),
            "best_donor": table.workloads[others[int(np.argmin(ranks))]], "best_donor_rank": int(ranks.min()),
            "consensus_rank": first_found(consensus, available, found), "good_donors": int(good.sum()),
            "others": len(others), "weight_on_good": weight_on_good, "heaviest_good": heaviest_good}


def summarise(rows: list[dict], runs: int) -> dict:
    out = {f"best donor within {k}": float(np.mean([r["best_donor_rank"] <= k for r in rows])) for k in BUDGETS}
    out |= {f"consensus within {k}": float(np.mean([r["consensus_rank"] <= k for r in rows])) for k in BUDGETS}
    out["good donors' share"] = float(np.mean([r["good_donors"] / r["others"] for r in rows]))
    for i in range(runs):
        out[f"weight on good donors after run {i + 1}"] = float(np.mean([r["weight_on_good"][i] for r in rows]))
        out[f"heaviest expert good after run {i + 1}"] = float(np.mean([r["heaviest_good"][i] for r in rows]))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="scout,cherrypick")
    parser.add_argument("--objective", default="cost")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", default=None, help="write OUT.json")
    args = parser.parse_args(argv)
    result = {"command": " ".join(sys.argv), "machine": platform.platform(), "tables": {}}
    for name in args.tables.split(","):
        table = load_table(table_spec(name))
        if args.objective not in table.objectives:
            continue
        rows = [one_target(table, args.objective, t, args.runs) for t in range(len(table.workloads))]
        result["tables"][name] = {"targets": rows, "summary": summarise(rows, args.runs)}
        print(f"## {name} / {args.objective}")
        for row in rows:
            weights = " ".join(f"{w:.2f}{'*' if h else ''}" for w, h in zip(row["weight_on_good"],
                                                                          row["heaviest_good"], strict=True))
            print(f"  {row['target'][:30]:30s} found {row['found']:2d}/{row['candidates']:2d}  best donor "
                  f"{row['best_donor_rank']:3d} ({row['best_donor'][:22]})  consensus {row['consensus_rank']:3d}  "
                  f"good donors {row['good_donors']:2d}/{row['others']}  weight on them: {weights}")
        for key, value in result["tables"][name]["summary"].items():
            print(f"  {key}: {value:.2f}")
    if args.out:
        Path(args.out + ".json").write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
