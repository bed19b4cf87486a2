"""Cost of the variability predictors (iotune.variability).

Prints, with BLAS pinned to one thread (threadpoolctl):

* DelaunayInterpolator, n = 10,000 points in d = 10: milliseconds per query for
  queries inside the hull and for queries drawn like the data (most of which
  are outside the hull in 10-D and take the projection path), with the mean
  number of flips. Target: under 20 ms per query.
* Mars: fit time on 810 points in 4 dimensions (the size of one MOANA map),
  degree 1 and 2, on MOANA-like levels and on continuous data (a knot
  candidate at every point). Target: under 1 s.
* LinearShepard: fit on 810 x 4 (MOANA-like levels and continuous), on 10,000 x 10, and 1,000 queries.

CPU time (process_time) is printed beside wall time: on a shared machine the
wall time includes waiting for a core.

    .venv/bin/python benchmarks/interpolators.py [--queries Q] [--seed S]
"""

import argparse
import os
import platform
import time

import numpy as np
from threadpoolctl import threadpool_limits

from iotune.learn.estimators.delaunay import DelaunayInterpolator
from iotune.learn.estimators.lsp import LinearShepard
from iotune.learn.estimators.mars import Mars


def timed(func):
    wall, cpu = time.perf_counter(), time.process_time()
    result = func()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def moana_like(rng, n):
    """MOANA-shaped data (frequency GHz, log2 threads, log2 file KB, log2 record KB); smooth plus noise."""
    X = np.column_stack([
        rng.uniform(1.2, 3.0, n), rng.integers(0, 9, n), rng.integers(6, 11, n), rng.integers(5, 10, n),
    ]).astype(float)
    y = np.sin(X[:, 0]) + 0.3 * np.abs(X[:, 1] - 4) + 0.1 * X[:, 2] * (X[:, 3] > 7) + 0.05 * rng.normal(size=n)
    return X, y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100, help="Delaunay queries per kind")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"# {platform.node()} {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
          f"load average {os.getloadavg()[0]:.1f}, numpy {np.__version__}")

    with threadpool_limits(1):
        n, d = 10_000, 10
        X = rng.uniform(size=(n, d))
        y = np.sin(3 * X).sum(axis=1)
        model, wall, cpu = timed(lambda: DelaunayInterpolator().fit(X, y))
        print(f"delaunay fit n={n} d={d}: {wall:.2f} s wall, {cpu:.2f} s cpu")
        inside = 0.5 + 0.2 * (rng.uniform(size=(args.queries, d)) - 0.5)
        like_data = rng.uniform(size=(args.queries, d))
        for name, Q in [("inside hull", inside), ("drawn like data", like_data)]:
            loc, wall, cpu = timed(lambda: model.locate(Q))
            outside = np.mean(loc.distance > 0)
            print(f"delaunay {name}: {1e3 * wall / len(Q):.1f} ms/query wall, "
                  f"{1e3 * cpu / len(Q):.1f} ms/query cpu, {loc.flips.mean():.1f} flips/query, "
                  f"{100 * outside:.0f}% outside hull")

        continuous = rng.uniform(size=(810, 4))
        smooth = np.sin(4 * continuous[:, 0]) + np.abs(continuous[:, 1] - 0.5) + continuous[:, 2] * continuous[:, 3]
        for degree, (Xm, ym) in [(1, moana_like(rng, 810)), (2, moana_like(rng, 810)),
                                 (1, (continuous, smooth)), (2, (continuous, smooth))]:
            fitted, wall, cpu = timed(lambda: Mars(max_degree=degree).fit(Xm, ym))
            kind = "levels" if Xm is not continuous else "continuous"
            print(f"mars fit 810 x 4 {kind} degree {degree}: {wall:.3f} s wall, {cpu:.3f} s cpu, "
                  f"{len(fitted.forward_terms_)} forward terms, {len(fitted.terms_)} kept, "
                  f"R2 {fitted.score(Xm, ym):.3f}")

        for kind, (Xl, yl) in [("levels", moana_like(rng, 810)), ("continuous", (continuous, smooth))]:
            _, wall, cpu = timed(lambda: LinearShepard().fit(Xl, yl))
            print(f"lsp fit 810 x 4 {kind}: {wall:.3f} s wall, {cpu:.3f} s cpu")

        lsp, wall, cpu = timed(lambda: LinearShepard().fit(X, y))
        print(f"lsp fit n={n} d={d}: {wall:.2f} s wall, {cpu:.2f} s cpu, "
              f"{lsp.rank_deficient_.sum()} rank-deficient nodes")
        Q = rng.uniform(size=(1000, d))
        (_, fallback), wall, cpu = timed(lambda: lsp.predict(Q, return_fallback=True))
        print(f"lsp predict 1000 queries: {wall:.2f} s wall, {cpu:.2f} s cpu, {fallback.mean():.0%} fallback")


if __name__ == "__main__":
    main()
