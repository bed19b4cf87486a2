"""Parallel tuning with a constant liar: what each sequential sampler gains and loses with N workers.

    .venv/bin/python benchmarks/parallel_tuning.py [--budget 36] [--seeds 10] [--workers 1 3 8]

The objective is the testbed ground truth (data/ground_truth, 216 configurations x 5 measured repeats):
a configuration's value is its median repeat's I/O time, a stand-in for the storage (no trial is run).
Each sampler searches the whole space with ``budget`` runs, N configurations at a time
(:class:`iotune.samplers.parallel.ConstantLiar`; N = 1 is the sampler alone).  Printed per sampler and N,
as means over the seeds: the best value found over the best of the table (1.000 = the optimum), the
rounds (batches: the wall time when trials take equal times), and the share of speculative proposals
that the true search later asked for (hits).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from iotune.samplers import Outcome, make_sampler  # noqa: E402
from iotune.samplers.parallel import ConstantLiar  # noqa: E402
from iotune.spec import load_spec  # noqa: E402

DATA = ROOT / "data" / "ground_truth"
SAMPLERS = (("genetic", {}), ("genetic", {"population": 6}), ("pso", {}), ("nelder-mead", {}), ("annealing", {}),
            ("pb-walk", {}))


def objective(space) -> dict[str, float]:
    per_trial: dict[str, list[dict]] = defaultdict(list)
    with open(DATA / "testbed_ground_truth.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            per_trial[row["trial_uid"]].append(row)
    values: dict[str, list[float]] = defaultdict(list)
    for rows in per_trial.values():
        configuration = space.configuration({p.name: rows[0][f"cfg.{p.name}"] or None for p in space.parameters})
        values[configuration.key].append(sum(float(r["seconds"]) for r in rows))
    return {key: statistics.median(v) for key, v in values.items()}


def search(name, options, space, value, workers, budget, seed):
    def factory():
        return make_sampler(name, space, seed=seed, budget=budget, options=options)

    sampler = ConstantLiar(factory, workers, lie="mean") if workers > 1 else factory()
    best, rounds = float("inf"), 0
    while batch := sampler.ask(sampler.batch or 10**6):
        rounds += 1
        for configuration in batch:
            v = value.get(configuration.key)
            outcome = Outcome("FAILED") if v is None else Outcome("COMPLETE", v, (v,))
            best = min(best, outcome.penalised)
            sampler.tell(configuration, outcome)
    hits = sampler.hits / sampler.speculated if workers > 1 and sampler.speculated else None
    return best, rounds, hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=36)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 3, 8])
    args = parser.parse_args()
    spec = load_spec(DATA / "testbed_ground_truth.yaml")
    value = objective(spec.space)
    optimum = min(value.values())
    print("| sampler | N | best / optimum | rounds | hits |")
    print("|---|---|---|---|---|")
    for name, options in SAMPLERS:
        if name == "pb-walk":
            options = {"levels": {"transfer_size": ("64KiB", "1MiB")}}
        label = name + (f" ({', '.join(f'{k} {v}' for k, v in options.items())})"
                        if options and name != "pb-walk" else "")
        for workers in args.workers:
            runs = [search(name, options, spec.space, value, workers, args.budget, seed) for seed in range(args.seeds)]
            quality = statistics.fmean(best / optimum for best, _, _ in runs)
            rounds = statistics.fmean(r for _, r, _ in runs)
            hits = [h for _, _, h in runs if h is not None]
            shown = f"{statistics.fmean(hits):.2f}" if hits else "-"
            print(f"| {label} | {workers} | {quality:.3f} | {rounds:.1f} | {shown} |", flush=True)


if __name__ == "__main__":
    main()
