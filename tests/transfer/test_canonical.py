"""The engine's canonical features: the same configurations under other encodings give the same choices."""

import numpy as np
import pytest

from iotune.transfer import Prior, TransferError, TransferTuner
from iotune.transfer.canonical import Canonical, feature_groups

FAMILIES = ("c4", "m4", "r4")
COUNTS = (2, 4, 8, 16, 32)


def configurations():
    return [(f, n) for f in FAMILIES for n in COUNTS]


def encode(points, categorical="onehot", counts="log2"):
    rows = []
    for family, n in points:
        first = list(np.eye(3)[FAMILIES.index(family)]) if categorical == "onehot" else [FAMILIES.index(family)]
        rows.append(first + [np.log2(n) if counts == "log2" else float(n)])
    return np.array(rows)


def times(points, speed, family_factor):
    # a workload whose time falls with the VM count up to a point, each family at its own factor
    return np.array([family_factor[FAMILIES.index(f)] * (speed / n + 0.05 * n) for f, n in points])


def prior_and_target(encoding):
    points = configurations()
    rng = np.random.default_rng(3)
    labels, rows, values = [], [], []
    for j in range(4):
        labels += [j] * len(points)
        rows.append(encode(points, *encoding))
        values.append(times(points, 20 + 10 * j, rng.uniform(0.7, 1.3, 3)))
    prior = Prior(np.array(labels), np.vstack(rows), np.concatenate(values), np.zeros(len(labels), dtype=bool))
    target = times(points, 35, (1.2, 0.8, 1.0))
    return encode(points, *encoding), prior, target


def tune(features, runs=8, **options):
    candidates, prior, target = prior_and_target(features)
    tuner = TransferTuner(candidates, prior, seed=0, **options)
    observations = []
    for _ in range(runs):
        pick = tuner.suggest(observations)[0]
        observations.append((pick, float(target[pick])))
    return [c for c, _ in observations]


def test_one_hot_or_index_log_or_linear_give_the_same_runs():
    runs = tune(("onehot", "log2"))
    assert len(set(runs)) == len(runs)
    for features in (("ordinal", "log2"), ("onehot", "linear"), ("ordinal", "linear")):
        assert tune(features) == runs
    # the columns as given, the family's index puts r4 twice as far from c4 as m4 is: other runs
    assert tune(("ordinal", "log2"), encoding="given") != runs


def test_levels_are_ordered_by_their_effect_in_the_prior():
    rows = np.array([[0.0], [1.0], [2.0]])
    # the middle level is the slowest, the last the fastest: its rank puts it first
    canonical = Canonical(rows, rows, np.array([0.0, 1.0, -1.0]))
    assert canonical.transform(rows)[:, 0].tolist() == [0.5, 1.0, 0.0]
    # without a prior the given order stays
    assert Canonical(rows).transform(rows)[:, 0].tolist() == [0.0, 0.5, 1.0]


def test_one_hot_groups_and_constants():
    rows = np.array([[1, 0, 0, 5.0, 7.0, 1.0], [0, 1, 0, 6.0, 7.0, 2.0], [0, 0, 1, 5.0, 7.0, 4.0]])
    assert feature_groups(rows) == [[0, 1, 2], [3], [4], [5]]
    canonical = Canonical(rows)
    assert canonical.transform(rows).shape == (3, 3)  # the constant column is gone
    # a workload differing in the 3-level category counts 2, in the binary number 1, in the 3-level number
    # its rank difference squared
    assert canonical.distance(rows, rows[0]) ** 2 == pytest.approx([0.0, 3.25, 3.0])
    # log2 of the last column instead: the same distances
    logged = rows.copy()
    logged[:, 5] = np.log2(logged[:, 5])
    assert Canonical(logged).distance(logged, logged[0]) == pytest.approx(canonical.distance(rows, rows[0]))


def test_a_row_never_seen_is_one_clear_error():
    canonical = Canonical(np.array([[0.0], [1.0]]))
    with pytest.raises(TransferError, match="not seen"):
        canonical.transform(np.array([[2.0]]))


def test_an_unknown_encoding_is_refused():
    with pytest.raises(TransferError, match="encoding"):
        TransferTuner(np.zeros((2, 1)) + [[0.0], [1.0]], encoding="fancy")
