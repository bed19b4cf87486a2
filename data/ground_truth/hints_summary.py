"""Per workload of the hints table: best, runner-up, default and worst configuration, spread of repeats,
and how much each hint moves the mean time.  python hints_summary.py [hints_ground_truth.csv]

A trial's time is its write plus read seconds (iotune.analysis); a configuration's time is the mean of its
repeats.  "overlap" says whether the repeats of the best and the runner-up overlap (min of one below the
max of the other); "t" is Welch's t statistic of their difference; "ties" counts the configurations whose
difference from the best has t < 2 (the best included).  A hint's effect is the largest over the
smallest mean time of its levels, each level's time being the mean over the configurations that have it.
"""

import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

WORKLOAD = ("processes", "file_per_process", "collective", "transfer_size", "block_size", "segment_count")
HINTS = ("cb_nodes", "cb_buffer_size", "romio_cb_write", "romio_cb_read", "romio_ds_write", "romio_ds_read")
DEFAULT = {"cb_nodes": "1", "cb_buffer_size": "16777216", "romio_cb_write": "automatic", "romio_cb_read": "automatic",
           "romio_ds_write": "automatic", "romio_ds_read": "automatic"}


def load(path):
    """{workload: {hint configuration: [trial seconds, ...]}} from the compact CSV."""
    trials = defaultdict(float)
    keys = {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            if not row["phase"]:  # a trial that failed or never finished has no phase
                continue
            uid = row["trial_uid"]
            trials[uid] += float(row["seconds"])
            keys[uid] = (tuple(row[f"cfg.{n}"] for n in WORKLOAD), tuple(row[f"cfg.{n}"] for n in HINTS))
    table = defaultdict(lambda: defaultdict(list))
    for uid, seconds in trials.items():
        workload, hints = keys[uid]
        table[workload][hints].append(seconds)
    return table


def describe_workload(workload):
    values = dict(zip(WORKLOAD, workload))
    size = int(values["transfer_size"]) // 1024
    size = f"{size // 1024}MiB" if size >= 1024 else f"{size}KiB"
    layout = "fpp" if values["file_per_process"] == "True" else (
        "strided" if values["block_size"] == values["transfer_size"] else "blocked")
    mode = "coll" if values["collective"] == "True" else "indep"
    return f"P={values['processes']} {size} {layout} {mode}"


def describe_hints(hints):
    short = {"cb_nodes": "n", "cb_buffer_size": "buf", "romio_cb_write": "cbw", "romio_cb_read": "cbr",
             "romio_ds_write": "dsw", "romio_ds_read": "dsr"}
    parts = []
    for name, value in zip(HINTS, hints):
        if value == "":
            continue
        if name == "cb_buffer_size":
            value = f"{int(value) // 1024}K"
        parts.append(f"{short[name]}={value[:3] if name.startswith('romio') else value}")
    return " ".join(parts)


def welch_t(a, b):
    se = (statistics.variance(a) / len(a) + statistics.variance(b) / len(b)) ** 0.5
    return (statistics.fmean(b) - statistics.fmean(a)) / se if se > 0 else float("inf")


def hint_effects(configs):
    effects = {}
    for index, name in enumerate(HINTS):
        by_level = defaultdict(list)
        for hints, times in configs.items():
            if hints[index] != "":
                by_level[hints[index]].append(statistics.fmean(times))
        if len(by_level) > 1:
            means = [statistics.fmean(v) for v in by_level.values()]
            effects[name] = max(means) / min(means)
    return effects


def summarise(configs):
    """The columns of one workload's line, as strings."""
    mean = {h: statistics.fmean(t) for h, t in configs.items()}
    ranked = sorted(configs, key=mean.get)
    best, second, worst = ranked[0], ranked[1], ranked[-1]
    default = next((h for h in configs if all(v in ("", DEFAULT[n]) for n, v in zip(HINTS, h))), None)
    default_time = mean[default] if default else float("nan")
    cv = {h: statistics.stdev(t) / mean[h] for h, t in configs.items()}
    overlap = "yes" if min(configs[second]) <= max(configs[best]) else "no"
    ties = 1 + sum(welch_t(configs[best], configs[h]) < 2 for h in ranked[1:])
    effects = sorted(hint_effects(configs).items(), key=lambda kv: -kv[1])
    return [str(len(configs)), f"{default_time:.3f}", f"{mean[best]:.3f} ({cv[best]:.2f})", describe_hints(best),
            f"{mean[second]:.3f} ({overlap}, t={welch_t(configs[best], configs[second]):.1f})", str(ties),
            f"{mean[worst]:.2f}", describe_hints(worst), f"{default_time / mean[best]:.2f}",
            f"{mean[worst] / mean[best]:.1f}", f"{statistics.median(cv.values()):.2f}",
            " ".join(f"{name}={effect:.2f}" for name, effect in effects)]


def main(path):
    """Print one Markdown table line per workload."""
    table = load(path)
    header = ["workload", "configs", "default s", "best s (cv)", "best hints", "runner-up s (overlap, t)", "ties",
              "worst s", "worst hints", "default/best", "worst/best", "median cv", "hint effects (max/min level)"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for workload in sorted(table, key=describe_workload):
        if len(table[workload]) >= 2:
            print("| " + " | ".join([describe_workload(workload), *summarise(table[workload])]) + " |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("hints_ground_truth.csv"))
