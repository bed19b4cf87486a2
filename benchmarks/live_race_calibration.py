"""Live calibration of ``iotune tune``'s decision (issue 29): real MPI-IO runs on this machine, many tunings,
judged against a many-repeat truth measured in the same run of the benchmark.

Workloads of a collective-buffering hint space (2 MPI processes, one shared file written and read in
interleaved blocks of ``--sizes`` (default 4 and 16 KiB), ``--segments`` x 64 KiB per process, fsync, the page
cache dropped before reads as root) whose default, ROMIO's automatic collective buffering with 4 MiB buffers,
is slower than the best by more than 1.3x (the runs of issue 29's first pass: ``--sizes 16KiB,32KiB
--segments 128``).  The truth is every configuration's geometric mean over ``--truth-repeats`` repeats, its
rounds (every configuration once, in an order of their own) spread evenly between the rounds of tunings, from
before the first to after the last, so that it holds the load the tunings saw (collective buffering's gain
depends on the load: a truth measured half before and half after the tunings once saw 1.80x before and 4.41x
after, the load having risen from 2 to 6).  Each tuning starts from an empty store (its own SQLite file: no
prior, no other workload's noise) and runs ``Study.tune(budget=...)`` with the race (the product) and without
it (``race=False``), alternately.

Per workload and mode: coverage of the 95% gain interval (the truth's default / the truth's declared best
inside it), decided (its lower bound above 1), median width (high / low), median stated / true gain, the
declared best's truth within 5% of the fastest, and the host's load average over the tunings.

    .venv/bin/python benchmarks/live_race_calibration.py [--tunings 10] [--budget 20] [--truth-repeats 10]
        [--sizes 4KiB,16KiB] [--segments 512] [--label quiet]
        [--out benchmarks/results/live_race_calibration_quiet.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import iotune
from iotune.recommend.decision import measured_configurations

SPEC = """
name: live
parameters:
  - {{name: transfer_size, type: size, levels: [{sizes}], role: workload, layer: application}}
  - {{name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio}}
  - {{name: romio_cb_read, type: categorical, levels: [automatic, disable], role: system, layer: mpiio}}
  - {{name: cb_buffer_size, type: size, levels: [4MiB, 64KiB], role: system, layer: mpiio,
     when: "romio_cb_write != 'disable'"}}
benchmark: {{api: MPIIO, processes: 2, block_size: 64KiB, segment_count: {segments}, collective: true,
            operation: readwrite, fsync: true}}
campaign: {{repeats: 1}}
"""


def truth_round_at(index: int, args) -> int:
    """Before which tuning round the truth's round ``index`` runs (``args.tunings``: after the last): the truth's
    rounds spread evenly from before the first tuning to after the last, so that they see the load the
    tunings saw, whatever its drift."""
    return round(index * args.tunings / max(1, args.truth_repeats - 1))


def truth_of(study) -> dict[str, dict[str, float]]:
    """Geometric mean time of every configuration, by workload key then configuration key."""
    groups = measured_configurations(study.space, study.stored.trials())
    return {workload: {m.key: m.mean for m in ranked} for workload, ranked in groups.items()}


def tune_once(spec_path: Path, workload: dict, budget: int, race: bool, scratch: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="iotune-live-") as folder:
        with iotune.create_study(spec_path, storage=Path(folder) / "tune.db") as study:
            load = os.getloadavg()[0]
            start = time.perf_counter()
            result = study.tune(workload=workload, budget=budget, race=race, scratch=scratch)
            return {"workload": workload, "race": race, "runs": result.runs, "seconds": time.perf_counter() - start,
                    "load": (load + os.getloadavg()[0]) / 2,
                    "best": None if result.best is None else result.best.configuration.key,
                    "workload_key": None if result.best is None else result.best.configuration.workload_key,
                    "default": None if result.default is None else result.default.configuration.key,
                    "gain": result.gain, "low": result.gain_low, "high": result.gain_high,
                    "confirmed": result.confirmed, "race_runs": result.race_runs}


def truth_runs_of(study) -> dict[str, dict[str, list[float]]]:
    """Every truth run's seconds in the order run, by workload key then configuration key: the truth's first
    and second halves can be compared when it looks off."""
    from iotune.study import Objective

    runs: dict[str, dict[str, list[float]]] = {}
    for trial in sorted(study.stored.trials(), key=lambda t: t.seq):
        if trial.state == "COMPLETE":
            runs.setdefault(trial.workload_key, {}).setdefault(trial.config_key, []).append(
                Objective("time").run_value(trial))
    return runs


def half_gains(rows: list[dict], truth_runs: dict[str, dict[str, list[float]]], half: int) -> dict[str, list]:
    """The default's time over the truth's fastest, from the truth's first ``half`` rounds and from the others."""
    out = {}
    for r in rows:
        if r["default"] is None or r["workload_key"] in out:
            continue
        runs = truth_runs[r["workload_key"]]
        gains = []
        for part in (slice(None, half), slice(half, None)):
            means = {k: math.exp(statistics.fmean(math.log(t) for t in v[part])) for k, v in runs.items() if v[part]}
            gains.append(means[r["default"]] / min(means.values()))
        out[r["workload"]["transfer_size"]] = gains
    return out


def judge(rows: list[dict], truth: dict[str, dict[str, float]], workloads: list[dict]) -> list[dict]:
    out = []
    for workload in workloads:
        for race in (True, False):
            group = [r for r in rows if r["workload"] == workload and r["race"] == race and r["gain"] is not None]
            judged = []
            for r in group:
                cells = truth[r["workload_key"]]
                true_gain = cells[r["default"]] / cells[r["best"]]
                # no interval stated (no configuration ran twice): it claims nothing, so it covers and decides nothing
                low, high = (0.0, math.inf) if r["low"] is None else (r["low"], r["high"])
                judged.append({"covered": low <= true_gain <= high, "decided": low > 1,
                               "width": high / low if low > 0 else math.inf, "stated_over_true": r["gain"] / true_gain,
                               "pick": cells[r["best"]] <= 1.05 * min(cells.values()), "true_gain": true_gain})
            if not judged:
                continue
            cells = truth[group[0]["workload_key"]]
            out.append({"workload": workload["transfer_size"], "race": race, "tunings": len(judged),
                        "true_gain_of_the_best": cells[group[0]["default"]] / min(cells.values()),
                        "coverage": statistics.fmean(j["covered"] for j in judged),
                        "decided": statistics.fmean(j["decided"] for j in judged),
                        "median_width": statistics.median(j["width"] for j in judged),
                        "median_stated_over_true": statistics.median(j["stated_over_true"] for j in judged),
                        "pick": statistics.fmean(j["pick"] for j in judged),
                        "mean_runs": statistics.fmean(r["runs"] for r in group),
                        "mean_load": statistics.fmean(r["load"] for r in group)})
    return out


def markdown(summary: list[dict]) -> str:
    lines = ["| workload | race | tunings | true gain of the fastest | gain covered | decided | median high/low | "
             "median stated/true | pick within 5% | runs | load |", "|---" * 11 + "|"]
    for s in summary:
        lines.append(f"| {s['workload']} | {'yes' if s['race'] else 'no'} | {s['tunings']} | "
                     f"{s['true_gain_of_the_best']:.2f}x | {s['coverage']:.2f} | {s['decided']:.2f} | "
                     f"{s['median_width']:.3g} | {s['median_stated_over_true']:.3f} | {s['pick']:.2f} | "
                     f"{s['mean_runs']:.1f} | {s['mean_load']:.1f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tunings", type=int, default=10, help="tunings per workload and mode")
    parser.add_argument("--budget", type=int, default=20)
    parser.add_argument("--truth-repeats", type=int, default=10)
    parser.add_argument("--sizes", default="4KiB,16KiB", help="the workloads: transfer sizes, comma-separated")
    parser.add_argument("--segments", type=int, default=512, help="segments of 64 KiB per process (data per run)")
    parser.add_argument("--label", default="")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="iotune-live-") as folder:
        work = Path(folder)
        spec_path = work / "live.yaml"
        sizes = [size.strip() for size in args.sizes.split(",") if size.strip()]
        workloads = [{"transfer_size": size} for size in sizes]
        spec_path.write_text(SPEC.format(sizes=", ".join(sizes), segments=args.segments))
        scratch = work / "scratch"
        scratch.mkdir()
        loads = [os.getloadavg()[0]]
        with iotune.create_study(spec_path, storage=work / "truth.db") as truth_study:
            rows, truth_rounds = [], 0
            for i in range(args.tunings + 1):
                while truth_rounds < args.truth_repeats and truth_round_at(truth_rounds, args) <= i:
                    truth_rounds += 1
                    truth_study.bench(repeats=truth_rounds, scratch=scratch)
                if i == args.tunings:
                    break
                for workload in workloads:
                    for race in ((True, False) if i % 2 == 0 else (False, True)):
                        rows.append(tune_once(spec_path, workload, args.budget, race, scratch))
                        loads.append(os.getloadavg()[0])
                if args.out:  # kept as they come: a crash later loses no tuning
                    Path(args.out).with_suffix(".rows.json").write_text(json.dumps(rows, default=str))
                print(f"tuning round {i + 1}/{args.tunings} done ({time.perf_counter() - started:.0f} s)",
                      file=sys.stderr)
            truth = truth_of(truth_study)
            truth_runs = truth_runs_of(truth_study)
    summary = judge(rows, truth, workloads)
    print(f"live race calibration{' (' + args.label + ')' if args.label else ''}: {len(rows)} tunings, budget "
          f"{args.budget}, truth {args.truth_repeats} repeats, {time.perf_counter() - started:.0f} s, load average "
          f"{min(loads):.1f}-{max(loads):.1f}; Python {platform.python_version()}, {os.cpu_count()} cores")
    print(markdown(summary))
    halves = half_gains(rows, truth_runs, args.truth_repeats // 2)
    print("true gain of the fastest, from the truth's first / second half: " +
          "; ".join(f"{size} {before:.2f}x / {after:.2f}x" for size, (before, after) in halves.items()))
    if args.out:
        Path(args.out).write_text(json.dumps({"command": " ".join(sys.argv), "label": args.label,
                                              "loads": [min(loads), max(loads)], "summary": summary, "rows": rows,
                                              "truth": truth, "truth_runs": truth_runs,
                                              "true_gain_halves": halves},
                                             indent=1, default=str))
    return 0 if all(math.isfinite(s["coverage"]) for s in summary) else 1


if __name__ == "__main__":
    sys.exit(main())
