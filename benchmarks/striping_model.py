"""Leave-one-workload-out validation of the placement model of a striped write (issue 33) on the striping ground
truth, with the score a perfect model could reach on these repeats.

    python benchmarks/striping_model.py data/ground_truth/striping_ground_truth.csv [--simulations 200]

For each of the 8 workloads (pattern x processes): fit ``fit_striped`` on the other 7 workloads' runs, predict
the held-out workload's 7 layouts (iotune.analytic.striped_validation): Spearman rho over layouts (each
layout's runs pooled over the collective-buffering hints), the measured best layout's rank in the prediction,
the share of single runs inside the predicted 10-90 % band.

Noise ceiling: the held-out model taken as the truth, the workload's runs drawn again from it (same number of
runs per layout: a random placement, then the fitted noise) ``--simulations`` times; the median Spearman rho
between those simulated layout means and the model's own means is what a model that is exactly right could
score with this many repeats, since a layout's measured mean depends on where its objects happened to land;
the second ceiling draws placements only (noise sigma 0.001), the most any model of the layout could score.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import time

import numpy as np
from scipy.stats import spearmanr

from iotune.analytic.striped_fit import fit_striped
from iotune.analytic.striped_runs import ground_truth_runs
from iotune.analytic.striped_validation import evaluate


def ceiling(model, test, simulations: int, seed: int, sigma: float) -> float:
    rng = np.random.default_rng(seed)
    counts: dict = {}
    for run in test:
        counts[run.write] = counts.get(run.write, 0) + 1
    writes = list(counts)
    means = np.array([model.mean(w) for w in writes])
    scores = []
    for _ in range(simulations):
        simulated = []
        for write in writes:
            times, weights = model.placement_times(write)
            picks = times[rng.choice(times.size, size=counts[write], p=weights)]
            noise = np.exp(sigma * rng.standard_normal(counts[write]) - sigma**2 / 2)
            simulated.append(float(np.mean(picks * noise)))
        scores.append(spearmanr(means, simulated).statistic)
    return float(np.median(scores))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("table")
    parser.add_argument("--simulations", type=int, default=200)
    args = parser.parse_args()
    runs = ground_truth_runs(csv.DictReader(open(args.table)))
    started = time.time()
    load = os.getloadavg()
    print("| held-out workload | runs | layouts | Spearman rho | ceiling rho (fitted noise / placement only) | measured best's predicted rank "
          "| 10-90 % band covers | predicted best (count, unit KiB) | measured best | queue |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rhos, ceilings, placement_ceilings, inside, total, top3 = [], [], [], 0, 0, 0
    for number, name in enumerate(sorted({r.workload for r in runs})):
        model = fit_striped([(r.write, r.seconds) for r in runs if r.workload != name])
        test = [r for r in runs if r.workload == name]
        rho, rank, hits, predicted_best, measured_best = evaluate(model, test)
        limit = ceiling(model, test, args.simulations, number, model.sigma)
        placement_only = ceiling(model, test, args.simulations, number, 1e-3)
        rhos.append(rho)
        ceilings.append(limit)
        placement_ceilings.append(placement_only)
        inside += hits
        total += len(test)
        top3 += rank <= 3
        queue = (model.fit_ or {}).get("queue", "")
        print(f"| {name} | {len(test)} | {len({r.write for r in test})} | {rho:.2f} | {limit:.2f} / {placement_only:.2f} | {rank} | "
              f"{hits / len(test):.0%} | {predicted_best[0]}, {predicted_best[1] >> 10} | "
              f"{measured_best[0]}, {measured_best[1] >> 10} | {queue.split(':')[0]} |")
    print(f"\nmean Spearman rho {statistics.fmean(rhos):.2f} (median {statistics.median(rhos):.2f}), "
          f"{sum(r >= 0.8 for r in rhos)} of {len(rhos)} workloads >= 0.8; noise ceiling mean "
          f"{statistics.fmean(ceilings):.2f} (placement only {statistics.fmean(placement_ceilings):.2f}); measured best in the predicted top 3: {top3} of {len(rhos)}; "
          f"10-90 % band covers {inside} of {total} single runs ({inside / total:.1%})")
    pooled = fit_striped([(r.write, r.seconds) for r in runs])
    print(f"fitted on all runs: {pooled!r}")
    print(f"fit quality: {pooled.fit_}")
    print(f"{time.time() - started:.0f} s; load average at start {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}")


if __name__ == "__main__":
    main()
