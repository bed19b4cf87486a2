"""A random forest on the target's own runs: the ``explore`` regime's model (issue 31).

When the other workloads have not predicted the target's runs, the engine chooses from the target's runs
alone.  A GP over them assumes a smooth response, and a job's cost on a cloud is not smooth: a cluster with
less memory than the job needs is several times slower, the smallest one with enough is the cheapest (scout's
kmeans, regression and terasort jobs).  Regression trees split on such a threshold.  A forest's mean and spread
per candidate are the mean and standard deviation of its trees' predictions (SMAC: Hutter, Hoos and
Leyton-Brown 2011, Sec. 4.2), read by expected improvement as the GP's are.

The trees read the canonical rows with every feature, derived ones included (a threshold on total memory is one
split): a category one-hot or as an index, a count as log2 or plain, give the same rows
(``iotune.transfer.canonical``), so the same trees.  The seed fixes the bootstrap and the features tried per
split, so a tuner rebuilt from its runs chooses the same.
"""

from __future__ import annotations

import numpy as np

TREES = 30
MAX_FEATURES = 0.5  # a share of the features tried per split: the trees differ more than bootstraps alone make them


def forest_posterior(rows: np.ndarray, fitted: np.ndarray, values: np.ndarray,
                     seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation over the trees of a forest fitted to ``values`` at ``rows[fitted]``,
    for every row of ``rows``."""
    from sklearn.ensemble import RandomForestRegressor  # loaded when used, as the engine's scipy

    forest = RandomForestRegressor(n_estimators=TREES, max_features=MAX_FEATURES, random_state=seed)
    forest.fit(rows[fitted], values)
    per_tree = np.array([tree.predict(rows) for tree in forest.estimators_])
    return per_tree.mean(axis=0), per_tree.std(axis=0)
