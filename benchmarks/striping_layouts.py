"""The placement model of a striped write (issue 33) on the striping-layouts ground truth: stripe count x stripe
unit x object size x servers on CephFS, three access patterns; leave one pattern out, and the truth's own
split-half reliability as the ceiling; then the held-out layout-space study of benchmarks/cephfs_layout_space.py.

    python benchmarks/striping_layouts.py data/ground_truth/striping_layouts.csv \
        [--layout-space LAYOUT_SPACE.db] [--old data/ground_truth/striping_ground_truth.csv]

The CSV is imported with the spec beside it (as ``iotune import`` does) into a scratch store, and its runs read
as ``iotune model striping --calibrate`` reads a study's.  For each pattern: ``fit_striped`` on the other two
patterns' runs (both numbers of servers), then per number of servers the held-out pattern's 13 layouts: Spearman
rho of predicted against measured mean, the measured best layout's rank in the prediction, the share of single
runs inside the predicted 10-90 % band, and the split-half Spearman rho of the measured means themselves (every
split of the 8 interleaved rounds into two halves of 4; ``iotune.analytic.striped_validation.split_half``).
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from iotune.analytic.striped_fit import BAND, fit_striped
from iotune.analytic.striped_runs import ground_truth_runs
from iotune.analytic.striped_study import study_runs
from iotune.analytic.striped_validation import evaluate, split_half
from iotune.spec import load_spec
from iotune.store import Store, exchange
from iotune.stored import StoredStudy

MIB = 1 << 20


def pattern_of(config: dict) -> str:
    if config.get("file_per_process"):
        return "file per process"
    return "shared, strided 64 KiB" if int(config["segment_count"]) > 1 else "shared, contiguous"


def table_runs(table: Path) -> list:
    """The table's runs, each named by its access pattern."""
    spec = load_spec(table.with_suffix(".yaml"))
    with tempfile.TemporaryDirectory() as scratch, Store(str(Path(scratch) / "truth.db")) as store:
        exchange.import_file(store, table, spec=spec)
        study = StoredStudy.open(store, spec.name)
        names = {t.workload_key: pattern_of(t.config) for t in study.trials(state="COMPLETE")}
        runs = study_runs(study)
    return [type(r)(names[r.workload], r.write, r.seconds, r.config, r.repeat) for r in runs]


def layout_text(layout: tuple) -> str:
    count, unit, size = layout
    return f"{count} x {unit >> 10} KiB / {size >> 20} MiB"


def leave_one_pattern_out(runs: list) -> None:
    print("| held-out pattern | servers | runs | layouts | Spearman rho | truth's split-half rho | measured best's "
          "predicted rank | 10-90 % band covers | predicted best (count x unit / object) | measured best |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rhos, ceilings, top3, inside, total = [], [], 0, 0, 0
    for pattern in sorted({r.workload for r in runs}):
        model = fit_striped([(r.write, r.seconds) for r in runs if r.workload != pattern], servers=3)
        for servers in (2, 3):
            test = [r for r in runs if r.workload == pattern and r.write.servers == servers]
            if not test:
                continue
            rho, rank, hits, predicted_best, measured_best = evaluate(model, test)
            ceiling = split_half(test)
            rhos.append(rho)
            ceilings.append(ceiling)
            top3 += rank <= 3
            inside += hits
            total += len(test)
            print(f"| {pattern} | {servers} | {len(test)} | {len({r.write for r in test})} | {rho:.2f} | "
                  f"{ceiling:.2f} | {rank} | {hits / len(test):.0%} | {layout_text(predicted_best)} | "
                  f"{layout_text(measured_best)} |")
        print(f"<!-- fitted without {pattern}: {model!r}; {model.fit_} -->")
    print(f"\nmean Spearman rho {statistics.fmean(rhos):.2f} (min {min(rhos):.2f}), {sum(r >= 0.8 for r in rhos)} of "
          f"{len(rhos)} >= 0.8; truth's split-half rho mean {statistics.fmean(ceilings):.2f} (min {min(ceilings):.2f});"
          f" measured best in the predicted top 3: {top3} of {len(rhos)}; 10-90 % band covers {inside} of {total} "
          f"single runs ({inside / total:.1%})")


def layout_space(db: str, model, label: str) -> None:
    with Store(db, create=False) as store:
        runs = study_runs(StoredStudy.open(store, "cephfs-layout-space"))
    groups: dict = defaultdict(list)
    for run in runs:
        groups[run.write].append(run.seconds)
    writes = sorted(groups, key=lambda w: statistics.fmean(groups[w]))
    measured = np.array([statistics.fmean(groups[w]) for w in writes])
    predicted = np.array([model.mean(w) for w in writes])
    inside = 0
    print(f"\nheld-out layout-space study, model fitted on {label}:\n")
    print("| servers | pool | object size MiB | stripe count | runs (s) | mean s | predicted mean s [10-90 %] |")
    print("|---|---|---|---|---|---|---|")
    for write, mean in zip(writes, predicted, strict=True):
        low, high = model.quantiles(write, BAND)
        times = np.array(groups[write])
        inside += int(np.sum((times >= low) & (times <= high)))
        pool = "replicated (2)" if write.replicas else "plain"
        print(f"| {write.servers} | {pool} | {write.object_size >> 20} | {write.stripe_count} | "
              f"{' '.join(f'{t:.2f}' for t in sorted(times))} | {times.mean():.2f} | {mean:.2f} [{low:.2f}, {high:.2f}] |")
    best = int(np.argmin(measured))
    rank = 1 + int(np.sum(predicted < predicted[best] * (1 - 1e-9)))
    count = sum(len(v) for v in groups.values())
    print(f"\nSpearman rho over the {len(writes)} configurations {spearmanr(predicted, measured).statistic:.2f}; "
          f"measured best's predicted rank {rank}; 10-90 % band covers {inside} of {count} runs ({inside / count:.0%})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("table", type=Path)
    parser.add_argument("--layout-space", help="the store of benchmarks/specs/cephfs_layout_space.yaml's study")
    parser.add_argument("--old", type=Path, help="the striping ground truth of issue 20, added to the last fit")
    args = parser.parse_args()
    started, load = time.time(), os.getloadavg()
    runs = table_runs(args.table)
    print(f"{len(runs)} runs, {len({r.workload for r in runs})} patterns, {len({r.write for r in runs})} writes\n")
    leave_one_pattern_out(runs)
    pooled = fit_striped([(r.write, r.seconds) for r in runs], servers=3)
    print(f"\nfitted on all {len(runs)} runs: {pooled!r}\nfit quality: {pooled.fit_}")
    if args.layout_space:
        layout_space(args.layout_space, pooled, "the striping-layouts table only")
        if args.old:
            old = ground_truth_runs(csv.DictReader(open(args.old)))
            both = fit_striped([(r.write, r.seconds) for r in runs + old], servers=3)
            print(f"\nfitted on both tables: {both!r}")
            layout_space(args.layout_space, both, "both striping tables")
    print(f"\n{time.time() - started:.0f} s; load average at start {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}")


if __name__ == "__main__":
    main()
