"""Table-2-style evaluation of variability maps on a stored study (paper 003, Section 3, Table 2).

    .venv/bin/python benchmarks/variability_eval.py --db iotune.db --study NAME [--repeats 200] [--target std]

Prints, per training proportion, the average relative error (%) of lsp, mars,
delaunay and linear maps of the per-configuration target, averaged over
repeats and over maps (one map per combination of categorical parameters),
plus the wall time.  Choices the paper leaves open: see
``iotune.variability.evaluation``.
"""

from __future__ import annotations

import argparse
import time

from iotune.store import Store
from iotune.stored import StoredStudy
from iotune.variability.evaluation import evaluate
from iotune.learn.registry import VARIABILITY as PREDICTORS
from iotune.variability.repeats import Repeats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="store URL or SQLite file")
    parser.add_argument("--study", required=True)
    parser.add_argument("--target", default="std", choices=["std", "cv", "mean", "q95"])
    parser.add_argument("--repeats", type=int, default=200, help="random splits per proportion (paper: B = 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--single-map", action="store_true", help="one map with categories one-hot encoded")
    args = parser.parse_args()
    with Store(args.db) as store:
        data = Repeats.from_study(StoredStudy.open(store, args.study)).require_repeats(2)
    start = time.perf_counter()
    rows = evaluate(data, args.target, not args.single_map, n_repeats=args.repeats, seed=args.seed)
    seconds = time.perf_counter() - start
    print(f"study {data.study}: {len(data)} configurations with >= 2 runs, target {args.target}, "
          f"B = {args.repeats}, maps scored {max(rows[0].maps.values())}")
    print(f"{'train':>6} {'test':>5} " + " ".join(f"{name + ' %':>11}" for name in PREDICTORS) + "  failed fits")
    for r in rows:
        failed = ", ".join(f"{k} {v}" for k, v in r.failed.items() if v) or "0"
        print(f"{r.train_proportion:>6.1f} {r.test_proportion:>5.1f} "
              + " ".join(f"{100 * r.are[name]:>11.2f}" for name in PREDICTORS) + f"  {failed}")
    print(f"wall time {seconds:.1f} s")


if __name__ == "__main__":
    main()
