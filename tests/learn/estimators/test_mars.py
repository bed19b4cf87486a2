"""Mars: earth's GCV known answers, recovery of hinge functions, pruning and limits."""

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from iotune.learn.errors import PredictorError
from iotune.learn.estimators.mars import Mars, gcv

MOANA = Path(__file__).parents[2] / "data" / "reference" / "moana.json"


def test_gcv_known_answers():
    kat = json.loads(MOANA.read_text())["gcv_kat"]
    assert gcv(10.0, 100, 5, 2) == pytest.approx(kat["earth_rss10_nterms5_n100_pen2"], rel=1e-12)
    assert gcv(10.0, 100, 5, 3) == pytest.approx(kat["earth_rss10_nterms5_n100_pen3"], rel=1e-12)
    assert gcv(10.0, 100, 5, -1) == pytest.approx(0.1)
    assert gcv(10.0, 10, 5, 3) == np.inf


def grid(levels, dims):
    g = np.linspace(0.0, 1.0, levels)
    return np.array(list(itertools.product(*[g] * dims))), g[1] - g[0]


def test_recovers_additive_hinges():
    X, step = grid(21, 2)
    y = 3 + 2 * np.maximum(0, X[:, 0] - 0.4) - np.maximum(0, 0.6 - X[:, 1])
    model = Mars().fit(X, y)
    assert model.score(X, y) > 0.999
    knots = {j: t for term in model.terms_ for j, t, _ in term}
    assert knots[0] == pytest.approx(0.4, abs=step) and knots[1] == pytest.approx(0.6, abs=step)
    Q = np.random.default_rng(0).uniform(size=(200, 2))
    truth = 3 + 2 * np.maximum(0, Q[:, 0] - 0.4) - np.maximum(0, 0.6 - Q[:, 1])
    np.testing.assert_allclose(model.predict(Q), truth, atol=1e-6)


def test_recovers_hinges_in_noise_and_prunes():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(400, 4))
    truth = 1 + 3 * np.maximum(0, X[:, 2] - 0.3) + 2 * np.maximum(0, 0.7 - X[:, 0])
    model = Mars().fit(X, truth + 0.01 * rng.normal(size=400))
    assert len(model.terms_) < len(model.forward_terms_)
    assert {j for term in model.terms_ for j, _, _ in term} == {0, 2}
    assert model.score(X, truth) > 0.999


def test_degree_two_finds_interaction():
    X, step = grid(15, 2)
    y = 4 * np.maximum(0, X[:, 0] - 0.5) * np.maximum(0, X[:, 1] - 0.3)
    additive = Mars(max_degree=1).fit(X, y).score(X, y)
    model = Mars(max_degree=2).fit(X, y)
    assert model.score(X, y) > 0.999 > additive
    assert max(len(term) for term in model.terms_) == 2
    assert all(len({j for j, _, _ in term}) == len(term) for term in model.terms_)


def test_limits_and_constant_target():
    rng = np.random.default_rng(2)
    X = rng.uniform(size=(200, 3))
    y = np.sin(6 * X[:, 0]) + X[:, 1] ** 2
    assert len(Mars(max_terms=5).fit(X, y).forward_terms_) <= 5
    assert len(Mars().fit(X, y).forward_terms_) <= 21
    flat = Mars().fit(X, np.full(200, 7.0))
    assert flat.terms_ == [()] and flat.predict(X[:3]) == pytest.approx([7.0] * 3)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_degree": 0},
        {"max_degree": 1.5},
        {"max_terms": 0},
        {"penalty": -2},
        {"thresh": 1.0},
        {"minspan": 0},
        {"endspan": "auto"},
    ],
)
def test_invalid_parameters(kwargs):
    with pytest.raises(PredictorError):
        Mars(**kwargs).fit(np.random.default_rng(0).uniform(size=(20, 2)), np.arange(20.0))
