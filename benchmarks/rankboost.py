"""Training time of RankBoost without pairs (iotune.models.RankBoost).

Fits RankBoost on a synthetic noisy monotone problem (n x d, T rounds, the
paper 000 default T = 200) and prints the fit time, the time per round and the
held-out Kendall tau.  BLAS is pinned to one thread.

    .venv/bin/python benchmarks/rankboost.py [--n 10000] [--d 15] [--rounds 200] [--repeats 3]
"""

import argparse
import platform
import time

import numpy as np
from threadpoolctl import threadpool_limits

from iotune.learn.estimators.rankboost import RankBoost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="training items")
    parser.add_argument("--d", type=int, default=15, help="features")
    parser.add_argument("--rounds", type=int, default=200, help="boosting rounds T")
    parser.add_argument("--repeats", type=int, default=3, help="fits; the best time is reported")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(2 * args.n, args.d))
    X[:, 1::2] = np.round(X[:, 1::2] * 8)  # half the features discrete, as tunables are
    y = np.exp(2 * X[:, 0]) + X[:, 1] - 0.5 * X[:, 2] + rng.normal(scale=0.3, size=2 * args.n)
    train, test = slice(0, args.n), slice(args.n, None)
    print(f"# {platform.processor() or platform.machine()}, python {platform.python_version()}, numpy {np.__version__}")
    print(f"{'n':>8}{'d':>5}{'rounds':>8}{'seconds':>10}{'ms/round':>10}{'test tau':>10}")
    best = float("inf")
    with threadpool_limits(1):
        for _ in range(args.repeats):
            start = time.perf_counter()
            model = RankBoost(n_rounds=args.rounds).fit(X[train], y[train])
            best = min(best, time.perf_counter() - start)
    tau = model.score(X[test], y[test])
    per_round = 1e3 * best / max(model.n_rounds_, 1)
    print(f"{args.n:>8}{args.d:>5}{model.n_rounds_:>8}{best:>10.2f}{per_round:>10.2f}{tau:>10.3f}")


if __name__ == "__main__":
    main()
