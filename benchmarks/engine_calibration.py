"""Does the transfer engine's model know how wrong it is?  Coverage of its stated intervals on the replay tables.

    .venv/bin/python benchmarks/engine_calibration.py [--tables scout,cherrypick,hints,testbed,striping]
        [--seeds 3] [--runs 15] [--variants calibrated,uncalibrated] [--out benchmarks/results/engine_calibration]

Leave one workload out, as the replay does: the engine (``TransferTuner``, the replay's known price under
cost) runs the target for ``--runs`` runs, each measured by drawing a recorded repeat.  Before each run after
the first, the model the next choice reads (``predict(as_chosen=True)``) is judged at every candidate not yet run:
z = (log true mean - predicted mean) / predicted sd; and at the candidate run next, by what ``iotune tune`` states
of it, "the model expects X (95 %: A to B)" (``expectation``: the same model, its sd widened by how far its statements
missed the runs before, to a Student's t 95 % interval; "next run").  Reported per table, objective, variant and
regime: the share of |z| < 1.96 (a 95 % interval's coverage), the share of |z| < 1 (the stated +- one sd: 68 %),
and the mean z^2 (1 when the sd is right on average).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from replay_encodings import table_spec  # noqa: E402
from replay_strategies import known_price  # noqa: E402

from iotune.transfer import Prior, TransferTuner, load_table  # noqa: E402
from iotune.transfer.engine import t_widening  # noqa: E402

VARIANTS = {"calibrated": {}, "uncalibrated": {"calibrate": False}, "no-model-choice": {"model_choice": False},
            "gp-explore": {"explore_model": "gp"}}


def _one_target(task) -> list[dict]:
    table_name, objective, target, variants, seeds, runs = task
    table = load_table(table_spec(table_name))
    available = np.flatnonzero(table.available[target])
    truth = np.log(table.truth(objective)[target, available])
    known = np.isfinite(truth)
    rows = []
    for variant in variants:
        for seed in seeds:
            tuner = TransferTuner(table.configuration_features[available],
                                  Prior.from_table(table, objective, exclude=[target]),
                                  table.workload_features[target], seed=seed,
                                  price=known_price(table, objective), **VARIANTS[variant])
            rng = np.random.default_rng([seed, target])
            observations = []
            while len(observations) < runs:
                suggestion = tuner.suggest(observations)
                if not suggestion:
                    break
                c = suggestion[0]
                if observations:
                    mean, std = tuner.predict(observations, as_chosen=True)
                    unrun = known.copy()
                    unrun[[c for c, _ in observations]] = False
                    z = (truth - mean) / std
                    stated_mean, stated_std = tuner.expectation(observations)
                    picked = [float((truth[c] - stated_mean[c]) / stated_std[c])] if unrun[c] else []
                    # the same statement before its t widening, and how many earlier statements were judged
                    judged = len(tuner.statements(observations))
                    before_t = [z * t_widening(judged) for z in picked]
                    rows.append({"table": table_name, "objective": objective, "variant": variant,
                                 "regime": tuner.regime(observations), "target": table.workloads[target],
                                 "seed": seed, "runs": len(observations), "z": z[unrun].tolist(),
                                 "z_pick": picked, "z_pick_before_t": before_t, "judged": judged})
                observations.append((c, table.measure(objective, target, int(available[c]), rng)))
    return rows


def summarise(rows: list[dict]) -> list[dict]:
    groups = defaultdict(list)
    for row in rows:
        for regime in (row["regime"], "all"):
            groups[(row["table"], row["objective"], row["variant"], regime)].extend(row["z"])
        groups[(row["table"], row["objective"], row["variant"], "next run")].extend(row["z_pick"])
    summary = []
    for (table, objective, variant, regime), z in sorted(groups.items()):
        z = np.abs(np.array(z))
        summary.append({"table": table, "objective": objective, "variant": variant, "regime": regime,
                        "candidates": len(z), "covered_95": float(np.mean(z < 1.96)),
                        "covered_68": float(np.mean(z < 1.0)), "mean_z2": float(np.mean(z**2))})
    return summary


def by_judged(rows: list[dict]) -> str:
    """The next run's coverage by the number of earlier statements judged, every table pooled, per variant."""
    groups = defaultdict(lambda: ([], []))
    for row in rows:
        stated, before_t = groups[(row["variant"], min(row["judged"], 4))]
        stated.extend(row["z_pick"])
        before_t.extend(row["z_pick_before_t"])
    lines = ["| variant | statements judged before | next runs | 95 % held, stated | 95 % held, without the t "
             "widening |", "|---|---|---|---|---|"]
    for (variant, judged), (stated, before_t) in sorted(groups.items()):
        lines.append(f"| {variant} | {judged if judged < 4 else '4 or more'} | {len(stated)} | "
                     f"{np.mean(np.abs(stated) < 1.96):.2f} | {np.mean(np.abs(before_t) < 1.96):.2f} |")
    return "\n".join(lines)


def markdown(summary: list[dict], variants: list[str]) -> str:
    index = {(s["table"], s["objective"], s["variant"], s["regime"]): s for s in summary}
    regimes = ("all", "prior", "explore", "broad", "next run")
    lines = ["| table | objective | variant | " + " | ".join(f"{r}: 95 % / 68 % / z^2" for r in regimes) + " |",
             "|---" * (3 + len(regimes)) + "|"]
    for table, objective in dict.fromkeys((s["table"], s["objective"]) for s in summary):
        for variant in variants:
            cells = []
            for regime in regimes:
                s = index.get((table, objective, variant, regime))
                cells.append("-" if s is None else
                             f"{s['covered_95']:.2f} / {s['covered_68']:.2f} / {s['mean_z2']:.1f} ({s['candidates']})")
            lines.append(f"| {table} | {objective} | {variant} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="scout,cherrypick,hints,testbed,striping")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--variants", default="calibrated,uncalibrated")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default=None, help="write OUT.json (summary and command)")
    args = parser.parse_args()
    variants = args.variants.split(",")
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant(s) {', '.join(unknown)}: choose from {', '.join(VARIANTS)}")
    tasks = []
    for name in args.tables.split(","):
        table = load_table(table_spec(name))
        for objective in table.objectives:
            tasks += [(name, objective, t, variants, list(range(args.seeds)), args.runs)
                      for t in range(len(table.workloads))]
    start = time.perf_counter()
    with multiprocessing.Pool(args.jobs) as pool:
        rows = [row for result in pool.map(_one_target, tasks, chunksize=1) for row in result]
    summary = summarise(rows)
    print(markdown(summary, variants))
    print()
    print(by_judged(rows))
    print(f"\n{len(tasks)} targets in {time.perf_counter() - start:.0f} s on {platform.node()}")
    if args.out:
        Path(args.out + ".json").write_text(json.dumps({"command": " ".join(sys.argv), "summary": summary,
                                                        "by_judged": by_judged(rows)}, indent=1))


if __name__ == "__main__":
    main()
