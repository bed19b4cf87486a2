"""Evaluations each search heuristic needs to come within 1 % of the Lustre model's optimum (paper 004, Sec. IV).

The objective is ``iotune.analytic.lustre_space.LustreObjective`` over paper
004's Table IV space (stripe count 1-160, stripe and transfer size 1-256 MiB,
1-1024 I/O processes: 142,560 points); its exact optimum comes from evaluating
every point.  For each strategy and seed the search runs with ``--budget``
distinct evaluations and reports the first evaluation within 1 % of the optimum
("-" if never).

    .venv/bin/python benchmarks/search_strategies.py [--size 50GB] [--seeds 10] [--budget 1000]
"""

from __future__ import annotations

import argparse
import statistics
import time

from iotune.analytic import LustreQueueModel
from iotune.analytic.lustre_space import LustreObjective, lustre_space
from iotune.samplers import make_sampler, optimize

STRATEGIES = ("random", "lhs", "nelder-mead", "annealing", "genetic", "pso")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="50GB", help="total bytes written (default 50GB)")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--budget", type=int, default=1000)
    args = parser.parse_args()

    model = LustreQueueModel(0.1, 0.125, 62.5e6)
    objective = LustreObjective(model, args.size)
    space = lustre_space()
    best_point, best_value, points = objective.exhaustive(space)
    target = 1.01 * best_value
    print(f"size {args.size}: exhaustive optimum {best_value:.3f} s at {best_point} ({points} points)")
    print(f"budget {args.budget} distinct evaluations, seeds 0..{args.seeds - 1}; "
          "evaluations to come within 1 % of the optimum")
    print(f"{'strategy':<12} {'hits':>5} {'median':>7} {'mean':>7} {'max':>5}  {'best found (s)':>14}  {'s/run':>6}  per seed")
    for name in STRATEGIES:
        needed, found = [], []
        start = time.perf_counter()
        for seed in range(args.seeds):
            result = optimize(make_sampler(name, space, seed=seed, budget=args.budget), objective)
            found.append(result.best_value)
            needed.append(next((i + 1 for i, (_, v) in enumerate(result.history) if v <= target), None))
        elapsed = (time.perf_counter() - start) / args.seeds
        hits = [n for n in needed if n is not None]
        summary = (f"{statistics.median(hits):7.0f} {statistics.mean(hits):7.1f} {max(hits):5d}"
                   if hits else f"{'-':>7} {'-':>7} {'-':>5}")
        per_seed = " ".join("-" if n is None else str(n) for n in needed)
        print(f"{name:<12} {len(hits):>2}/{args.seeds:<2} {summary}  {min(found):14.3f}  {elapsed:6.3f}  {per_seed}")


if __name__ == "__main__":
    main()
