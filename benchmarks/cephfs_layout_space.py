"""The CephFS testbed's own layout space (issue 33): object size x stripe count x data pool (plain or replicated)
x number of servers, measured by ``benchmarks/specs/cephfs_layout_space.yaml``; each layout's share of the
physical limit, and the placement model, fitted on the striping ground truth only, predicting this new workload.

    iotune bench benchmarks/specs/cephfs_layout_space.yaml --db /var/tmp/layout_space.db     # as root
    python benchmarks/cephfs_layout_space.py /var/tmp/layout_space.db data/ground_truth/striping_ground_truth.csv

Physical limit of a configuration: every byte written ``replicas`` times (2 in the replicated pool) spread
evenly over the servers, each at the testbed's 5 MB/s: replicas x bytes / (servers x 5e6) seconds; the share
is that over the measured time (1 = as fast as the servers can go).
"""

from __future__ import annotations

import csv
import statistics
import sys
from collections import defaultdict

import numpy as np
from scipy.stats import spearmanr

from iotune.analytic.striped_fit import BAND, fit_striped
from iotune.analytic.striped_runs import ground_truth_runs
from iotune.analytic.striped_study import replicas_of, study_runs
from iotune.store import Store
from iotune.stored import StoredStudy

MBPS = 5e6
STUDY = "cephfs-layout-space"


def main() -> None:
    db, table = sys.argv[1], sys.argv[2]
    with Store(db, create=False) as store:
        study = StoredStudy.open(store, STUDY)
        trials = study.trials(state="COMPLETE")
        runs = study_runs(study)
        mismatched = 0
        for trial in trials:
            effect = trial.extra.get("layout_in_effect", {})
            asked = {k: str(trial.config[k]) for k in ("pool", "object_size", "stripe_count")}
            mismatched += any(effect.get(k) != v for k, v in asked.items())
    groups: dict = defaultdict(list)
    for run in runs:
        groups[run.write].append(run.seconds)
    trained = fit_striped([(r.write, r.seconds) for r in ground_truth_runs(csv.DictReader(open(table)))])
    rows = []
    for write, times in groups.items():
        servers = write.servers or 3
        replicas = write.replicas or 1
        total = write.files * write.file_bytes
        limit = replicas * total / (servers * MBPS)
        low, high = trained.quantiles(write, BAND)
        rows.append((write, times, limit, trained.mean(write), low, high))
    rows.sort(key=lambda r: statistics.fmean(r[1]))
    print(f"{len(trials)} trials, layout in effect = asked in {len(trials) - mismatched}\n")
    print("| servers | pool | object size MiB | stripe count | runs (s) | mean s | limit s | share of limit: mean / "
          "best run | model (ground truth only): mean s [10-90 %] |")
    print("|---|---|---|---|---|---|---|---|---|")
    for write, times, limit, mean, low, high in rows:
        pool = "replicated (2)" if write.replicas else "plain"
        print(f"| {write.servers} | {pool} | {write.object_size >> 20} | {write.stripe_count} | "
              f"{' '.join(f'{t:.2f}' for t in sorted(times))} | {statistics.fmean(times):.2f} | {limit:.2f} | "
              f"{limit / statistics.fmean(times):.0%} / {limit / min(times):.0%} | {mean:.2f} [{low:.2f}, {high:.2f}] |")
    measured = np.array([statistics.fmean(r[1]) for r in rows])
    predicted = np.array([r[3] for r in rows])
    inside = sum(int(np.sum((np.array(r[1]) >= r[4]) & (np.array(r[1]) <= r[5]))) for r in rows)
    count = sum(len(r[1]) for r in rows)
    best = int(np.argmin(measured))
    rank = 1 + int(np.sum(predicted < predicted[best] * (1 - 1e-9)))
    print(f"\nmodel fitted on the striping ground truth only ({trained!r}), on this new workload: Spearman rho over "
          f"the {len(rows)} configurations {spearmanr(predicted, measured).statistic:.2f}; measured best's predicted "
          f"rank {rank}; 10-90 % band covers {inside} of {count} runs ({inside / count:.0%})")
    for servers in sorted({r[0].servers for r in rows}):
        for replicated in (False, True):
            subset = [r for r in rows if r[0].servers == servers and bool(r[0].replicas) == replicated]
            if len(subset) > 2:
                rho = spearmanr([r[3] for r in subset], [statistics.fmean(r[1]) for r in subset]).statistic
                top = min(subset, key=lambda r: statistics.fmean(r[1]))
                print(f"{servers} servers, {'replicated' if replicated else 'plain'}: rho over its "
                      f"{len(subset)} layouts {rho:.2f}; best (object size {top[0].object_size >> 20} MiB, stripe "
                      f"count {top[0].stripe_count}) at {top[2] / statistics.fmean(top[1]):.0%} of the limit")
    own = fit_striped([(r.write, r.seconds) for r in runs])
    print(f"\nfitted on this study: {own!r}\nfit quality: {own.fit_}")
    print(f"replicas of the testbed's replicated pool: {replicas_of('cephfs_replicated')}")


if __name__ == "__main__":
    main()
