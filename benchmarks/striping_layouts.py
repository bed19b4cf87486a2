"""The placement model of a striped write (issue 33) on the striping-layouts ground truth: stripe count x stripe
unit x object size x servers on CephFS, three access patterns; leave one pattern out, and the truth's own
split-half reliability as the ceiling; then the held-out layout-space study of benchmarks/cephfs_layout_space.py.

    python benchmarks/striping_layouts.py data/ground_truth/striping_layouts.csv \
        [--layout-space LAYOUT_SPACE.db] [--old data/ground_truth/striping_ground_truth.csv]

The CSV is imported with the spec beside it (as ``iotune import`` does) into a scratch store, and its runs read
as ``iotune model striping --calibrate`` reads a study's.  For each pattern: ``fit_striped`` on the other two
patterns' runs (both numbers of servers), then per number of servers the held-out pattern's 13 layouts: Spearman
rho of predicted against measured mean, the measured best layout's rank in the prediction, the share of single
runs inside the predicted 10-90 % band, the split-half Spearman rho of the measured means themselves (every
split of the 8 interleaved rounds into two halves of 4; ``iotune.analytic.striped_validation.split_half``), and
the median rho an exact model would score against as many runs drawn from it (a random placement each, then the
fitted noise; ``striping_model.ceiling``).
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
from iotune.analytic.striped_placement import StripedPlacementModel
from iotune.analytic.striped_runs import ground_truth_runs
from iotune.analytic.striped_study import study_runs
from iotune.analytic.striped_validation import evaluate, split_half
from iotune.spec import load_spec
from iotune.store import Store, exchange
from iotune.stored import StoredStudy

from striping_model import ceiling as noise_ceiling  # isort: skip  (benchmarks/, the path of a script run from it)

MIB = 1 << 20
THROTTLE = 5e6
"""Bytes/s of writes the testbed's blkio throttle lets each OSD's device take."""


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
    print("| held-out pattern | servers | runs | layouts | Spearman rho | truth's split-half rho | exact model's rho | "
          "measured best's predicted rank | 10-90 % band covers | predicted best (count x unit / object) | "
          "measured best |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    rhos, ceilings, exact, top3, inside, total = [], [], [], 0, 0, 0
    for pattern in sorted({r.workload for r in runs}):
        model = fit_striped([(r.write, r.seconds) for r in runs if r.workload != pattern], servers=3)
        for servers in (2, 3):
            test = [r for r in runs if r.workload == pattern and r.write.servers == servers]
            if not test:
                continue
            rho, rank, hits, predicted_best, measured_best = evaluate(model, test)
            ceiling = split_half(test)
            simulated = noise_ceiling(model, test, 200, servers, model.sigma)
            rhos.append(rho)
            ceilings.append(ceiling)
            exact.append(simulated)
            top3 += rank <= 3
            inside += hits
            total += len(test)
            print(f"| {pattern} | {servers} | {len(test)} | {len({r.write for r in test})} | {rho:.2f} | "
                  f"{ceiling:.2f} | {simulated:.2f} | {rank} | {hits / len(test):.0%} | "
                  f"{layout_text(predicted_best)} | {layout_text(measured_best)} |")
        print(f"<!-- fitted without {pattern}: {model!r}; {model.fit_} -->")
    print(f"\nmean Spearman rho {statistics.fmean(rhos):.2f} (min {min(rhos):.2f}), {sum(r >= 0.8 for r in rhos)} of "
          f"{len(rhos)} >= 0.8; truth's split-half rho mean {statistics.fmean(ceilings):.2f} (min "
          f"{min(ceilings):.2f}); an exact model's {statistics.fmean(exact):.2f}; measured best in the predicted top "
          f"3: {top3} of {len(rhos)}; 10-90 % band covers {inside} of {total} single runs ({inside / total:.1%})")


def levels(runs: list, label: str) -> None:
    """How far each run is from the nearest time the busiest server's bytes at the throttle's 5 MB/s allow (one per
    placement of its objects, nothing fitted), and how much a configuration's repeats spread."""
    throttle = StripedPlacementModel(THROTTLE, servers=3)
    distance = []
    for run in runs:
        times, _ = throttle.placement_times(run.write)
        distance.append(float(np.min(np.abs(times - run.seconds))) / run.seconds)
    spread: dict = defaultdict(list)
    for run in runs:
        spread[(run.workload, run.write)].append(run.seconds)
    cvs = [statistics.stdev(t) / statistics.fmean(t) for t in spread.values() if len(t) > 1]
    share = np.array(distance)
    print(f"{label}: {len(runs)} runs; a run's distance to the nearest busiest-server time at 5 MB/s: median "
          f"{np.median(share):.1%}, {np.mean(share < 0.05):.0%} within 5 %, {np.mean(share < 0.1):.0%} within 10 %; "
          f"a configuration's repeats: median coefficient of variation {statistics.median(cvs):.3f}")


def layout_space_runs(db: str) -> list:
    """The runs of the layout-space study and of its rounds (studies cephfs-layout-space-rK), each run's repeat its
    round where there are rounds."""
    runs = []
    with Store(db, create=False) as store:
        for name in sorted(s.name for s in store.list_studies() if s.name.startswith("cephfs-layout-space")):
            rounds = name.removeprefix("cephfs-layout-space-r")
            for run in study_runs(StoredStudy.open(store, name)):
                repeat = int(rounds) if rounds.isdigit() else run.repeat
                runs.append(type(run)(run.workload, run.write, run.seconds, run.config, repeat))
    return runs


def layout_space(runs: list, model, label: str) -> None:
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
              f"{' '.join(f'{t:.2f}' for t in sorted(times))} | {times.mean():.2f} | "
              f"{mean:.2f} [{low:.2f}, {high:.2f}] |")
    best = int(np.argmin(measured))
    rank = 1 + int(np.sum(predicted < predicted[best] * (1 - 1e-9)))
    count = sum(len(v) for v in groups.values())
    print(f"\nSpearman rho over the {len(writes)} configurations {spearmanr(predicted, measured).statistic:.2f} "
          f"(the measurement's split-half rho {split_half(runs):.2f}); measured best's predicted rank {rank}; "
          f"10-90 % band covers {inside} of {count} runs ({inside / count:.0%})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("table", type=Path)
    parser.add_argument("--layout-space", nargs="*", default=[],
                        help="stores of benchmarks/specs/cephfs_layout_space.yaml's study (or its rounds)")
    parser.add_argument("--old", type=Path, help="the striping ground truth of issue 20, added to the last fit")
    parser.add_argument("--frozen", help="a store of striping_layouts.yaml measured in rounds of one order (study "
                                         "striping-layouts): its runs' distance to the busiest-server times")
    args = parser.parse_args()
    started, load = time.time(), os.getloadavg()
    runs = table_runs(args.table)
    print(f"{len(runs)} runs, {len({r.workload for r in runs})} patterns, {len({r.write for r in runs})} writes\n")
    levels(runs, "this table")
    if args.frozen:
        with Store(args.frozen, create=False) as store:
            levels(study_runs(StoredStudy.open(store, "striping-layouts")), "rounds in one order")
    print()
    leave_one_pattern_out(runs)
    pooled = fit_striped([(r.write, r.seconds) for r in runs], servers=3)
    print(f"\nfitted on all {len(runs)} runs: {pooled!r}\nfit quality: {pooled.fit_}")
    both = None
    if args.old and args.layout_space:
        old = ground_truth_runs(csv.DictReader(open(args.old)))
        both = fit_striped([(r.write, r.seconds) for r in runs + old], servers=3)
        print(f"\nfitted on both striping tables: {both!r}")
    for db in args.layout_space:
        held_out = layout_space_runs(db)
        levels(held_out, f"\nlayout-space study in {db}")
        layout_space(held_out, pooled, "the striping-layouts table only")
        if both is not None:
            layout_space(held_out, both, "both striping tables")
    print(f"\n{time.time() - started:.0f} s; load average at start {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}")


if __name__ == "__main__":
    main()
