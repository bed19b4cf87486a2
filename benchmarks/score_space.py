"""Score paper 000's whole Table 1 space (1,769,472 combinations) with a CART tree and a random forest.

Two figures per model: a workload-agnostic pass over every assignment of the
15-parameter space (chunks of level indices -> ``Space.active_mask`` ->
``Encoder.transform_indices`` -> predict; invalid and duplicate assignments
skipped as Algorithm 1 does), and one per-workload recommendation
(``Recommender.recommend``: 96 system assignments, 72 distinct valid ones).  Seconds are wall time;
peak memory is tracemalloc's peak of Python/numpy allocations during a second,
separately run pass (tracemalloc slows the pass, so it is not timed).

Run: ``.venv/bin/python benchmarks/score_space.py [--rows 3000] [--trees 50]``
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc
from pathlib import Path

import numpy as np
from sklearn.ensemble import RandomForestRegressor

from iotune.learn import TrainedModel
from iotune.learn.registry import cart
from iotune.recommend import Recommender
from iotune.space import Space

TABLE_1 = """
name: acic-table-1
description: paper 000 Table 1 (6 cloud I/O system options, 9 workload characteristics)
parameters:
  - {name: disk_device, type: categorical, levels: [EBS, ephemeral], role: system, layer: device}
  - {name: file_system, type: categorical, levels: [NFS, PVFS2], role: system, layer: filesystem}
  - {name: instance_type, type: categorical, levels: [cc1.4xlarge, cc2.8xlarge], role: system, layer: device}
  - {name: io_servers, type: integer, levels: [1, 2, 4], role: system, layer: filesystem}
  - {name: placement, type: categorical, levels: [part-time, dedicated], default: dedicated, role: system,
     layer: filesystem}
  - {name: striping_unit, type: size, levels: [64KiB, 4MiB], role: system, layer: filesystem,
     hint: striping_unit, when: "file_system == 'PVFS2'"}
  - {name: processes, type: integer, levels: [32, 64, 128, 256], role: workload, layer: application}
  - {name: io_processes, type: integer, levels: [32, 64, 128, 256], role: workload, layer: application}
  - {name: api, type: categorical, levels: [POSIX, MPIIO], role: workload, layer: application}
  - {name: segment_count, type: integer, levels: [1, 10, 100], role: workload, layer: application}
  - {name: block_size, type: size, levels: [1MiB, 4MiB, 16MiB, 32MiB, 128MiB, 512MiB], role: workload,
     layer: application}
  - {name: transfer_size, type: size, levels: [256KiB, 4MiB, 16MiB, 128MiB], role: workload, layer: application}
  - {name: operation, type: categorical, levels: [read, write], role: workload, layer: application}
  - {name: collective, type: boolean, levels: [true, false], role: workload, layer: mpiio}
  - {name: file_per_process, type: boolean, levels: [false, true], role: workload, layer: application}
constraints:
  - "transfer_size <= block_size"
"""
REFERENCE = Path(__file__).parents[1] / "tests" / "data" / "reference" / "plackett_burman.json"
WORKLOAD = {"processes": 128, "io_processes": 64, "api": "MPIIO", "segment_count": 10, "block_size": "32MiB",
            "transfer_size": "4MiB", "operation": "write", "collective": True, "file_per_process": False}


def synthetic_seconds(X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A made-up, positive, non-linear I/O time with log-normal noise (seconds); only its cost to predict matters here."""
    weights = rng.normal(size=X.shape[1])
    return np.exp(0.1 * (X @ weights) + 0.3 * np.sin(X[:, 0] * X[:, -1]) + rng.normal(0, 0.05, len(X)))


def score_everything(model: TrainedModel, chunk_size: int) -> tuple[int, float]:
    """Predict every distinct valid assignment; returns (candidates scored, best predicted seconds)."""
    space, encoder = model.space, model.encoder
    scored, best = 0, np.inf
    for indices in space.level_index_chunks(chunk_size):
        active, valid = space.active_mask(indices)
        valid &= np.all(active | (indices == 0), axis=1)
        rows = np.flatnonzero(valid)
        predictions = model.predict_encoded(encoder.transform_indices(indices[rows], active[rows]))
        scored += len(rows)
        best = min(best, float(predictions.min(initial=np.inf)))
    return scored, best


def measure(function):
    start = time.perf_counter()
    result = function()
    seconds = time.perf_counter() - start
    tracemalloc.start()
    function()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result, seconds, peak / 2**10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3000, help="synthetic training rows")
    parser.add_argument("--trees", type=int, default=50, help="random forest size")
    parser.add_argument("--chunk", type=int, default=65_536, help="rows per scoring chunk")
    args = parser.parse_args()

    space = Space.from_text(TABLE_1, source="Table 1")
    expected = json.loads(REFERENCE.read_text())["footnote_product"]["product"]
    assert space.size == expected, (space.size, expected)
    print(f"space: {len(space.parameters)} parameters, {space.size:,} combinations (paper 000 footnote 1)")

    rng = np.random.default_rng(0)
    configs = space.sample(args.rows, seed=0)
    X = space.encode(configs)
    y = synthetic_seconds(X, rng)
    estimators = {"cart (PrunedTree)": cart(), f"random forest ({args.trees} trees)":
                  RandomForestRegressor(n_estimators=args.trees, max_features=0.5, random_state=0, n_jobs=1)}
    for label, estimator in estimators.items():
        start = time.perf_counter()
        estimator.fit(X, y)
        fit = time.perf_counter() - start
        model = TrainedModel(label, label, estimator, space, "onehot", "time", "synthetic", "bench", len(y))
        (scored, best), seconds, peak = measure(lambda: score_everything(model, args.chunk))
        recommender = Recommender(model)
        result, rec_seconds, rec_peak = measure(lambda: recommender.recommend(WORKLOAD, objective="cost", top=3))
        print(f"{label}: fit {fit:.2f} s on {len(y)} rows; full space: {scored:,} valid of {space.size:,} scored in "
              f"{seconds:.2f} s ({scored / seconds / 1e6:.2f} M/s), peak {peak / 1024:.0f} MiB; "
              f"one workload (cost objective): {result.evaluated} candidates in {rec_seconds * 1e3:.1f} ms, "
              f"peak {rec_peak:.0f} KiB, {result.co_champions} co-champion(s), "
              f"best {result.best.improvement_vs_median:.2f}x vs median")


if __name__ == "__main__":
    main()
