"""The transfer engine on large candidate sets: seconds and peak memory of a tuning of ten runs, by model.

    .venv/bin/python benchmarks/engine_scale.py [--candidates 1000,10000,50000] [--workloads 12] [--runs 10]

Synthetic: six features (three categories of 4-8 levels, three counts of 8-16 levels), ``--workloads`` prior
workloads measured on every candidate (time = a product of per-feature effects with a workload's own mix, and
noise), a target of the same kind, ten runs through ``suggest``.  Each model in its own child process (peak RSS
is the process's ``ru_maxrss``).  The sampler caps a space at 50,000 candidates (``MAX_CANDIDATES``).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np

MODELS = {"covariance (default)": {}, "experts (before)": {"model": "experts", "encoding": "canonical",
                                                            "warm_start": 2, "broad_model": "same"}}


def space(n: int, rng) -> np.ndarray:
    levels = [4, 6, 8, 8, 12, 16]
    rows = np.array([[rng.integers(k) for k in levels] for _ in range(n)], dtype=float)
    return np.unique(rows, axis=0)


def times(rows: np.ndarray, mix: np.ndarray) -> np.ndarray:
    effect = np.sin(rows * mix[:6]) + 0.3 * rows * mix[6:] / rows.max(axis=0).clip(1)
    return np.exp(effect.sum(axis=1))


def one(n: int, workloads: int, runs: int, options: dict) -> dict:
    from iotune.transfer import Prior, TransferTuner

    rng = np.random.default_rng(0)
    candidates = space(n, rng)
    mixes = rng.uniform(0.2, 1.0, (workloads + 1, 12))
    labels = np.repeat(np.arange(workloads), len(candidates))
    values = np.concatenate([times(candidates, m) * np.exp(0.05 * rng.standard_normal(len(candidates)))
                             for m in mixes[:workloads]])
    prior = Prior(labels, np.vstack([candidates] * workloads), values, np.zeros(len(values), dtype=bool))
    target = times(candidates, mixes[-1])
    start = time.perf_counter()
    tuner = TransferTuner(candidates, prior, **options)
    built = time.perf_counter() - start
    observations = []
    for _ in range(runs):
        c = tuner.suggest(observations)[0]
        observations.append((c, float(target[c])))
    elapsed = time.perf_counter() - start
    best = target[tuner.best(observations)] / target.min()
    return {"candidates": len(candidates), "build_s": round(built, 2), "total_s": round(elapsed, 2),
            "per_run_s": round((elapsed - built) / runs, 3), "best_over_optimum": round(float(best), 3),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", default="1000,10000,50000")
    parser.add_argument("--workloads", type=int, default=12)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        n, options = json.loads(args.child)
        print(json.dumps(one(n, args.workloads, args.runs, options)))
        return
    print("| model | candidates | build s | ten runs s | per run s | peak RSS MiB | best / optimum |")
    print("|---|---|---|---|---|---|---|")
    for n in [int(x) for x in args.candidates.split(",")]:
        for name, options in MODELS.items():
            done = subprocess.run([sys.executable, __file__, "--workloads", str(args.workloads), "--runs",
                                   str(args.runs), "--child", json.dumps([n, options])],
                                  capture_output=True, text=True, check=True)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"| {name} | {r['candidates']} | {r['build_s']} | {r['total_s']} | {r['per_run_s']} | "
                  f"{r['peak_rss_mib']} | {r['best_over_optimum']} |", flush=True)


if __name__ == "__main__":
    main()
