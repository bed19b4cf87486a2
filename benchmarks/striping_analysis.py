"""The striping ground truth (issue 20): per workload, the best layout's gain over stripe count 1 against the
repeats' spread, and paper 004's Lustre queue model calibrated on it (Sec. II-B, "calibrating the model
against measured benchmarks").

    python benchmarks/striping_analysis.py data/ground_truth/striping_ground_truth.csv

A workload is (pattern, processes); a layout is (stripe_count, stripe_unit); a configuration adds the
collective-buffering hints.  Per workload:

- best: the configuration with the lowest mean write time; base: the best configuration with stripe count 1
  (the same hints searched), so the gain is what the layout adds once the hints are tuned;
- spread: the median over configurations of the repeats' coefficient of variation (sd / mean);
- separated: the best configuration's and the base's 5 repeats do not overlap (max of one < min of other).

Calibration: LustreQueueModel.fit on every trial of the workload as (bytes, stripe_count, seconds); the model
predicts one time per stripe count, so it ranks layouts by stripe count only; Spearman rho between its
prediction and the measured mean per layout (each layout at its best hints), and its optimum stripe count
against the measured best layout's.
"""

from __future__ import annotations

import csv
import statistics
import sys
from collections import defaultdict

from scipy.stats import spearmanr

from iotune.analytic.errors import ModelError
from iotune.analytic.lustre import LustreQueueModel


def main() -> None:
    rows = list(csv.DictReader(open(sys.argv[1])))
    workloads = defaultdict(list)
    for row in rows:
        workloads[(row["pattern"], int(row["processes"]))].append(row)
    print("| workload | trials | best configuration | best s | stripe count 1 best s | gain | spread (median CV) "
          "| separated | model rho | model optimum n | measured best n | best s by n: measured / model |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (pattern, processes), trials in sorted(workloads.items()):
        configs = defaultdict(list)
        for t in trials:
            configs[(int(t["stripe_count"]), t["stripe_unit"], t["romio_cb_write"], t["cb_nodes"])].append(
                float(t["seconds"]))
        means = {k: statistics.fmean(v) for k, v in configs.items()}
        best = min(means, key=means.get)
        ones = [k for k in means if k[0] == 1]
        base = min(ones, key=means.get) if ones else None
        cvs = [statistics.stdev(v) / statistics.fmean(v) for v in configs.values() if len(v) > 1]
        spread = statistics.median(cvs) if cvs else float("nan")
        separated = "-"
        if base is not None and base != best and len(configs[best]) > 1 and len(configs[base]) > 1:
            separated = "yes" if max(configs[best]) < min(configs[base]) else "no"
        layouts = defaultdict(list)
        for key, mean in means.items():
            layouts[(key[0], key[1])].append(mean)
        layout_best = {k: min(v) for k, v in layouts.items()}
        rho_text, optimum_text = "-", "-"
        counts = sorted({k[0] for k in layout_best})
        by_n = {n: min(v for k, v in layout_best.items() if k[0] == n) for n in counts}
        model_by_n = {}
        try:
            model = LustreQueueModel.fit([(int(t["bytes"]), int(t["stripe_count"]), float(t["seconds"]))
                                          for t in trials])
            size = int(trials[0]["bytes"])
            keys = sorted(layout_best)
            predicted = [model.completion_time(size, k[0]) for k in keys]
            if len(keys) > 2:
                rho_text = f"{spearmanr(predicted, [layout_best[k] for k in keys]).statistic:.2f}"
            optimum_text = str(model.optimal_stripe_count(size, max(k[0] for k in keys)))
            model_by_n = {n: model.completion_time(size, n) for n in counts}
        except ModelError as error:
            rho_text = f"no fit ({str(error)[:40]}...)"
        label = f"sc={best[0]}" + (f" su={int(best[1]) >> 10}KiB" if best[1] else "") + \
            (f" cb={best[2]}" if best[2] else "") + (f" nodes={best[3]}" if best[3] else "")
        base_text = f"{means[base]:.3f}" if base else "-"
        gain = f"{means[base] / means[best]:.2f}x" if base else "-"
        print(f"| {pattern} p={processes} | {len(trials)} | {label} | {means[best]:.3f} | {base_text} | {gain} | "
              f"{spread:.1%} | {separated} | {rho_text} | {optimum_text} | {best[0]} | "
              + " ".join(f"{n}: {by_n[n]:.2f}/{model_by_n[n]:.2f}" if n in model_by_n else f"{n}: {by_n[n]:.2f}/-"
                         for n in counts) + " |")


if __name__ == "__main__":
    main()
