"""Does a run's time depend on the run just before it? (issue 29: the live race understated a 2 KiB gain)

Runs the configurations of one workload of the live calibration's hint space (``live_race_calibration.SPEC``)
in a random sequence, every configuration equally often, through the real store, worker and benchmark, and
fits log time = configuration + predecessor (least squares, the predecessor's effects centred): the
predecessor effect of a configuration is how much slower (>1) or faster (<1) a run is when that configuration
ran just before it, against a run after an average predecessor.  Prints each configuration's geometric mean,
its predecessor effect with a 95% interval, and the gain of the fastest over the default three ways: its
plain geometric means, the model's configuration effects (what a random order converges to), and pairs
alternating only the two (what a two-racer race measures).

    .venv/bin/python benchmarks/carry_over.py [--size 2KiB] [--runs-each 20] [--segments 512] [--seed 0]
        [--out benchmarks/results/carry_over.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import iotune
from iotune.spec.mapping import benchmark_spec
from iotune.study import Objective, Worker

sys.path.insert(0, str(Path(__file__).parent))
from live_race_calibration import SPEC  # noqa: E402


def measure(study, sequence, scratch: Path) -> list[float]:
    """Run ``sequence`` (configurations, in that order) through the store's queue; each run's seconds."""
    from iotune.runners.registry import runner_and_storage

    spec = study.spec
    repeats: dict[str, int] = {}
    items = []
    for configuration in sequence:
        repeat = repeats.get(configuration.key, 0)
        repeats[configuration.key] = repeat + 1
        items.append({"config": configuration.to_dict(), "config_key": configuration.key,
                      "workload_key": configuration.workload_key, "repeat": repeat,
                      "benchmark": benchmark_spec(spec.space, configuration, spec.benchmark).to_dict()})
    study.store.enqueue(study.stored.id, items)
    run, _ = runner_and_storage(spec, "builtin", 600.0, None, scratch)
    worker = Worker(study.stored, run, scratch)
    try:
        worker.drain()
    finally:
        worker.close()
        run.close()
    done = sorted((t for t in study.stored.trials() if t.state == "COMPLETE"), key=lambda t: t.seq)
    if len(done) != len(items):
        raise SystemExit(f"{len(items) - len(done)} runs failed")
    return [Objective("time").run_value(t) for t in done]


def geometric_mean(key: str, keys: list[str], times: list[float]) -> float:
    return math.exp(np.mean([math.log(t) for k, t in zip(keys, times, strict=True) if k == key]))


def predecessor_model(keys: list[str], times: list[float]) -> tuple[dict, dict, dict]:
    """Least squares of log time = configuration + predecessor (sum-to-zero): effects and standard errors."""
    names = sorted(set(keys))
    index = {k: i for i, k in enumerate(names)}
    n = len(names)
    rows, y = [], []
    for previous, current, seconds in zip(keys, keys[1:], times[1:], strict=False):
        row = np.zeros(2 * n - 1)
        row[index[current]] = 1.0
        p = index[previous]
        if p < n - 1:
            row[n + p] = 1.0
        else:
            row[n:] = -1.0
        rows.append(row)
        y.append(math.log(seconds))
    x, y = np.array(rows), np.array(y)
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    residual = y - x @ coef
    sigma2 = float(residual @ residual) / (len(y) - x.shape[1])
    cov = sigma2 * np.linalg.pinv(x.T @ x)
    carry = list(coef[n:]) + [-float(np.sum(coef[n:]))]
    contrast = np.hstack([np.zeros((n, n)), np.vstack([np.eye(n - 1), -np.ones(n - 1)])])
    carry_se = np.sqrt(np.diag(contrast @ cov @ contrast.T))
    effects = {k: float(coef[index[k]]) for k in names}
    return effects, {k: (float(carry[index[k]]), float(carry_se[index[k]])) for k in names}, {"sigma": sigma2 ** .5}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2KiB", help="the workloads' transfer sizes, comma-separated: their "
                        "configurations are mixed in one sequence; the first is the one paired")
    parser.add_argument("--runs-each", type=int, default=20)
    parser.add_argument("--pairs", type=int, default=20, help="alternating runs of the fastest and the default")
    parser.add_argument("--segments", type=int, default=512)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    started, load = time.perf_counter(), [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="iotune-carry-") as folder:
        work = Path(folder)
        spec_path = work / "live.yaml"
        sizes = [size.strip() for size in args.sizes.split(",")]
        spec_path.write_text(SPEC.format(sizes=", ".join(sizes), segments=args.segments))
        scratch = work / "scratch"
        scratch.mkdir()
        with iotune.create_study(spec_path, storage=work / "carry.db") as study:
            configurations = list(study.space.enumerate())
            defaults = [study.space.configuration({"transfer_size": size}) for size in sizes]
            default = defaults[0]
            sequence = configurations * args.runs_each
            random.Random(args.seed).shuffle(sequence)
            times = measure(study, sequence, scratch)
            keys = [c.key for c in sequence]
            effects, carry, fit = predecessor_model(keys, times)
            means = {k: geometric_mean(k, keys, times) for k in effects}
            workload_of = {c.key: c.workload_key for c in configurations}
            fastest_of = {d.workload_key: min((k for k in effects if workload_of[k] == d.workload_key),
                                              key=effects.get) for d in defaults}
            fastest = fastest_of[default.workload_key]
            by_key = {c.key: c for c in configurations}
        load.append(os.getloadavg()[0])
        with iotune.create_study(spec_path, storage=work / "pairs.db") as study:
            pair = [by_key[fastest], default]
            sequence = [c for _ in range(args.pairs) for c in random.Random(len(sequence)).sample(pair, 2)]
            times_pairs = measure(study, sequence, scratch)
            pair_keys = [c.key for c in sequence]
        load.append(os.getloadavg()[0])

    result = {
        "command": " ".join(sys.argv), "load": [min(load), max(load)], "seconds": time.perf_counter() - started,
        "sigma_log": fit["sigma"],
        "configurations": [{"key": k, "config": by_key[k].to_dict(), "geometric_mean": means[k],
                            "effect": math.exp(effects[k]), "after_it": math.exp(carry[k][0]),
                            "after_it_low": math.exp(carry[k][0] - 1.96 * carry[k][1]),
                            "after_it_high": math.exp(carry[k][0] + 1.96 * carry[k][1])} for k in effects],
        "gains": {d.to_dict()["transfer_size"]: {
            "random_order_means": means[d.key] / means[fastest_of[d.workload_key]],
            "random_order_model": math.exp(effects[d.key] - effects[fastest_of[d.workload_key]])} for d in defaults},
        "gain_alternating": geometric_mean(default.key, pair_keys, times_pairs) /
                            geometric_mean(fastest, pair_keys, times_pairs),
        "fastest": fastest, "default": default.key}
    for c in sorted(result["configurations"], key=lambda c: c["effect"]):
        print(f"{c['key'][:8]} {json.dumps(c['config'])}: mean {c['geometric_mean']:.3f} s; a run after it "
              f"x{c['after_it']:.3f} [{c['after_it_low']:.3f}, {c['after_it_high']:.3f}]")
    for size, gain in result["gains"].items():
        print(f"{size}: gain of the fastest over the default in random order {gain['random_order_means']:.3f} "
              f"(means), {gain['random_order_model']:.3f} (model)")
    print(f"{sizes[0]} alternating the fastest and the default: {result['gain_alternating']:.3f}; "
          f"sigma of log time {fit['sigma']:.3f}; load {min(load):.1f}-{max(load):.1f}; "
          f"{result['seconds']:.0f} s")
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
