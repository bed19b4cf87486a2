"""Per-feature length scales learnt from the prior (``iotune.transfer.lengths``): the feature the other workloads'
runs move with weighs most, whatever its encoding."""

import numpy as np
import pytest

from iotune.transfer import Prior
from iotune.transfer.canonical import Canonical
from iotune.transfer.engine import _effects
from iotune.transfer.lengths import relevance

FAMILIES = ("c4", "m4", "r4")
COUNTS = (2, 4, 8, 16, 32)


def encode(points, categorical, counts):
    rows = []
    for family, n in points:
        first = list(np.eye(3)[FAMILIES.index(family)]) if categorical == "onehot" else [FAMILIES.index(family)]
        rows.append(first + [np.log2(n) if counts == "log2" else float(n)])
    return np.array(rows)


def weights(categorical="onehot", counts="log2", workloads=4):
    points = [(f, n) for f in FAMILIES for n in COUNTS]
    rng = np.random.default_rng(5)
    labels, rows, values = [], [], []
    for j in range(workloads):
        labels += [j] * len(points)
        rows.append(encode(points, categorical, counts))
        # the time halves with every doubling of the count; the family moves it by a few percent at random
        values.append([(40.0 + 10 * j) / n * rng.uniform(0.97, 1.03) for _, n in points])
    prior = Prior(np.array(labels), np.vstack(rows), np.concatenate(values), np.zeros(len(labels), dtype=bool))
    rows_all = np.vstack(rows)
    canonical = Canonical(rows_all, *_effects(prior, True))
    return relevance(canonical, *_effects(prior, True, by_workload=True))


def test_the_feature_the_prior_moves_with_weighs_most():
    family, count = weights()
    assert count > family
    assert np.mean(weights() ** 2) == pytest.approx(1.0)  # relative: the GP's own length scale sets the rest


def test_the_weights_do_not_depend_on_the_encoding():
    reference = weights()
    for encoding in (("ordinal", "log2"), ("onehot", "linear"), ("ordinal", "linear")):
        assert np.allclose(weights(*encoding), reference)


def test_one_prior_workload_learns_no_weights():
    assert weights(workloads=1) is None


def test_a_reading_of_the_canonical_features_gets_a_weight_per_column_it_keeps():
    from iotune.transfer import TransferTuner

    points = [(f, n) for f in FAMILIES for n in COUNTS]
    rows = encode(points, "onehot", "log2")
    prior = Prior(np.repeat(np.arange(3), len(points)), np.vstack([rows] * 3),
                  np.concatenate([[(40.0 + 10 * j) / n for _, n in points] for j in range(3)]),
                  np.zeros(3 * len(points), dtype=bool))
    tuner = TransferTuner(rows, prior, encoding="core", lengths="prior")
    assert tuner._weights is not None and len(tuner._weights) == tuner._unit.shape[1]
    assert tuner.suggest([]) and tuner.suggest([(0, 20.0)])
