"""Where CephFS actually put each run's objects, and what the placement model makes of knowing it (issue 33).

    python benchmarks/striping_placement.py data/ground_truth/striping_layouts.csv \
        [--pg-osds data/ground_truth/striping/pg_osds.csv] [--skip-fits]

The runs of the striping-layouts table that recorded their files' inode numbers (column ``file_inodes``) name
their objects (``iotune.analytic.ceph_objects``: inode -> object names -> placement group), and the testbed's
placement-group table (``pg_osds.csv``, from its OSD map) says which OSD holds each.  Printed:

* placement against the model's assumption (every object on a uniformly random server, independently): the
  share of runs whose objects all landed on one server, observed and expected, and the mean over runs of the
  model's probability of a busiest server no busier than the actual one (0.5 when placement is as assumed);
* each run's time against the time of its own placement: nothing fitted (each OSD at the throttle's 5 MB/s,
  no overhead) and the model fitted without the run's pattern (``placed_time``), beside the model's mixture mean;
* leave one pattern out: Spearman rho of the layouts' measured means against the model's mean over uniform
  placements (what it assumes), over the placements CRUSH gives 512 consecutive inode numbers under the testbed's
  placement-group table (the file system's placement function known, the file's not), and over the runs' own
  placements (``placed_time``: where each run's objects went known);
* the runs of one configuration (``--odd``: pattern, servers, count, unit KiB, object MiB) object by object.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from iotune.analytic.ceph_objects import file_servers
from iotune.analytic.placement import object_bytes
from iotune.analytic.striped_fit import fit_striped
from iotune.analytic.striped_placement import StripedPlacementModel
from iotune.analytic.striped_runs import striped_write

from striping_layouts import THROTTLE, pattern_of, table_runs  # isort: skip  (benchmarks/, the script's path)

DEFAULT_UNIT = 1 << 20  # the spec's benchmark layout, in effect at stripe count 1


def pg_tables(path: Path) -> dict[int, np.ndarray]:
    """OSD of each placement group of the data pool, per number of OSDs."""
    groups: dict = defaultdict(dict)
    with open(path) as handle:
        for row in csv.DictReader(line for line in handle if not line.startswith("#")):
            groups[int(row["devices"])][int(row["pg"])] = int(row["osd"])
    return {devices: np.array([table[g] for g in range(len(table))]) for devices, table in groups.items()}


FIRST_INODE = 0x10000000000
"""CephFS's first inode number for files (``MDS_INO_SYSTEM_BASE``'s successor range: 2^40)."""


def inferred_inodes(rows: list[dict]) -> dict[str, list[int]]:
    """Each trial's inode numbers as a fresh testbed hands them out, from the order its trials started in: the
    first trial's file(s) get 2^40 + 1 (and, a file per process, + 0x1f6), then each trial takes the next free
    number for its directory and the following ones for its file(s) (seen in every round that recorded them)."""
    inodes: dict[str, list[int]] = {}
    testbeds: dict = defaultdict(list)
    for row in rows:
        testbeds[(row["repeat"], row["cfg.devices"])].append(row)
    for trials in testbeds.values():
        trials.sort(key=lambda r: r["started_at"])
        free = FIRST_INODE + 0x1F6
        for position, row in enumerate(trials):
            files = 2 if row["cfg.file_per_process"] == "True" else 1
            if position == 0:
                inodes[row["trial_uid"]] = [FIRST_INODE + 1, free][:files]
                free += files - 1
            else:
                inodes[row["trial_uid"]] = [free + 1 + k for k in range(files)]
                free += 1 + files
    return inodes


def placed_runs(table: Path, tables: dict) -> list[dict]:
    """Every row with its write and where its files' objects landed: from the inode numbers it recorded, else
    from those its place in its round implies (``inferred_inodes``); prints how often the two agree."""
    runs = []
    with open(table) as handle:
        rows = list(csv.DictReader(handle))
    inferred = inferred_inodes(rows)
    recorded = agree = 0
    for row in rows:
        inodes = [int(i) for i in (row.get("file_inodes") or "").split()]
        if inodes:
            recorded += 1
            agree += sorted(inodes) == sorted(inferred[row["trial_uid"]])
        known = bool(inodes)
        inodes = inodes or inferred[row["trial_uid"]]
        servers = int(row["cfg.devices"])
        fpp = row["cfg.file_per_process"] == "True"
        layout = {"stripe_count": row["cfg.stripe_count"], "stripe_unit": row["cfg.stripe_unit"] or DEFAULT_UNIT,
                  "object_size": row["cfg.object_size"]}
        write = striped_write(2, fpp, row["bytes"], layout, servers=servers)
        objects = object_bytes(write.file_bytes, write.stripe_count, write.stripe_unit, write.object_size)
        where = [file_servers(inode, objects.numbers, tables[servers]) for inode in inodes]
        runs.append({"pattern": pattern_of({"file_per_process": fpp, "segment_count": row["cfg.segment_count"]}),
                     "write": write, "seconds": float(row["seconds"]), "where": where, "inodes": inodes,
                     "repeat": int(row["repeat"]), "objects": objects, "recorded": known})
    print(f"inode numbers: {recorded} of {len(rows)} runs recorded them, the order of their round implies the same "
          f"numbers for {agree} of those {recorded}")
    return runs


def busiest(write, where, objects) -> float:
    """Bytes on the busiest server of one placement."""
    load = np.zeros(write.servers)
    for servers in where:
        np.add.at(load, servers, objects.bytes)
    return float(load.max())


def placement_check(runs: list[dict]) -> None:
    model = StripedPlacementModel(THROTTLE, servers=3)
    one_observed = one_expected = 0.0
    several = 0
    below = []
    for run in runs:
        write, where = run["write"], run["where"]
        loads = model.loads(write)
        peaks = loads.bytes.max(axis=1)
        actual = busiest(write, where, run["objects"])
        below.append(float(loads.weights[peaks < actual - 0.5].sum() + 0.5 * loads.weights[
            np.abs(peaks - actual) <= 0.5].sum()))
        if sum(len(w) for w in where) > 1:
            several += 1
            one_observed += len(set(np.concatenate(where).tolist())) == 1
            one_expected += float(loads.weights[loads.servers_used == 1].sum())
    print(f"{len(runs)} runs with their files' inode numbers; of the {several} with more than one object, all objects "
          f"on one server in {one_observed:.0f} ({one_observed / several:.1%}), expected under independent uniform "
          f"placement {one_expected:.1f} ({one_expected / several:.1%}); the model's probability of a busiest server "
          f"below the actual one (mid-p), mean over runs {statistics.fmean(below):.3f} (0.5 if placement is as "
          f"assumed; standard error {statistics.stdev(below) / len(below) ** 0.5:.3f})")


def time_check(runs: list[dict], models: dict) -> None:
    throttle = StripedPlacementModel(THROTTLE, servers=3)
    rows = []
    for run in runs:
        model = models[run["pattern"]]
        rows.append((run["seconds"], throttle.placed_time(run["write"], run["where"]),
                     model.placed_time(run["write"], run["where"]), model.mean(run["write"])))
    data = np.array(rows)
    for column, label in ((1, "its placement, nothing fitted (5 MB/s per OSD)"),
                          (2, "its placement, the model fitted without its pattern"),
                          (3, "the model's mean over placements (placement unknown)")):
        error = np.abs(data[:, column] - data[:, 0]) / data[:, 0]
        log_error = np.log(data[:, 0] / data[:, column])
        print(f"a run's time against {label}: median |error| {np.median(error):.1%}, within 10 % "
              f"{np.mean(error < 0.1):.0%}, sd of log ratio {np.std(log_error):.3f}")


def crush_mean(model, write, tables: dict, inodes: int = 512) -> float:
    """The model's mean over the placements CRUSH gives files of ``inodes`` consecutive inode numbers (from the
    range the testbed hands out) under the testbed's own placement-group table, instead of uniform placement."""
    objects = object_bytes(write.file_bytes, write.stripe_count, write.stripe_unit, write.object_size)
    start = FIRST_INODE + 0x1F6
    times = [model.placed_time(write, [file_servers(start + write.files * k + f, objects.numbers,
                                                    tables[write.servers]) for f in range(write.files)])
             for k in range(inodes)]
    return statistics.fmean(times)


def ranking_check(runs: list[dict], models: dict, tables: dict) -> None:
    print("\n| held-out pattern | servers | runs | rounds | rho: mean over uniform placements (the model) | rho: mean "
          "over CRUSH's placements (PG table) | rho: mean over the runs' own placements | measured best's rank "
          "(uniform / CRUSH / own) |")
    print("|---|---|---|---|---|---|---|---|")
    both = []
    for pattern in sorted({r["pattern"] for r in runs}):
        model = models[pattern]
        for servers in (2, 3):
            test = [r for r in runs if r["pattern"] == pattern and r["write"].servers == servers]
            if not test:
                continue
            groups: dict = defaultdict(list)
            for run in test:
                groups[run["write"]].append(run)
            writes = list(groups)
            measured = np.array([statistics.fmean(r["seconds"] for r in groups[w]) for w in writes])
            blind = np.array([model.mean(w) for w in writes])
            crush = np.array([crush_mean(model, w, tables) for w in writes])
            known = np.array([statistics.fmean(model.placed_time(w, r["where"]) for r in groups[w]) for w in writes])
            best = int(np.argmin(measured))
            ranks = [1 + int(np.sum(p < p[best] * (1 - 1e-9))) for p in (blind, crush, known)]
            scores = [spearmanr(p, measured).statistic for p in (blind, crush, known)]
            both.append(scores)
            print(f"| {pattern} | {servers} | {len(test)} | {len({r['repeat'] for r in test})} | {scores[0]:.2f} | "
                  f"{scores[1]:.2f} | {scores[2]:.2f} | {' / '.join(map(str, ranks))} |")
    means = np.mean(both, axis=0)
    print(f"\nmean rho: {means[0]:.2f} uniform placement (the model), {means[1]:.2f} CRUSH's placements under the "
          f"testbed's PG table, {means[2]:.2f} each run's own placement known")


def odd_configuration(runs: list[dict], odd: list[str]) -> None:
    pattern, servers, count, unit, size = odd[0], int(odd[1]), int(odd[2]), int(odd[3]) << 10, int(odd[4]) << 20
    print(f"\n{pattern}, {servers} servers, stripe count {count}, unit {unit >> 10} KiB, objects {size >> 20} MiB:")
    for run in sorted(runs, key=lambda r: r["repeat"]):
        write = run["write"]
        if (run["pattern"], write.servers, write.layout()) != (pattern, servers, (count, unit, size)):
            continue
        objects = ", ".join(f"{inode:x}: OSDs {' '.join(map(str, where.tolist()))}"
                            for inode, where in zip(run["inodes"], run["where"], strict=True))
        print(f"  round {run['repeat']}: {run['seconds']:.2f} s; busiest server "
              f"{busiest(write, run['where'], run['objects']) / (1 << 20):.0f} MiB; objects {objects}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("table", type=Path)
    parser.add_argument("--pg-osds", type=Path, default=Path("data/ground_truth/striping/pg_osds.csv"))
    parser.add_argument("--odd", nargs=5, default=["shared, contiguous", "2", "2", "64", "4"],
                        metavar=("PATTERN", "SERVERS", "COUNT", "UNIT_KIB", "OBJECT_MIB"))
    parser.add_argument("--skip-fits", action="store_true", help="placement only, no model fitted")
    args = parser.parse_args()
    started, load = time.time(), os.getloadavg()
    tables = pg_tables(args.pg_osds)
    runs = placed_runs(args.table, tables)
    placement_check(runs)
    if not args.skip_fits:
        every = table_runs(args.table)
        models = {p: fit_striped([(r.write, r.seconds) for r in every if r.workload != p], servers=3)
                  for p in sorted({r.workload for r in every})}
        time_check(runs, models)
        ranking_check(runs, models, tables)
    odd_configuration(runs, args.odd)
    print(f"\n{time.time() - started:.0f} s; load average at start {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}")


if __name__ == "__main__":
    main()
