"""RankBoost without pairs (paper 000, Algorithm 2; Freund et al. 2003)."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from iotune.learn.errors import PredictorError
from iotune.learn.estimators.rankboost import RankBoost
from iotune.learn.metrics import kendall_tau


def explicit_pair_rankboost(X, y, n_rounds, alpha_rule):
    """Algorithm 2 as written: an explicit list of crucial pairs (a worse, b better)."""
    worse, better = np.nonzero(y[:, None] > y[None, :])
    d = np.full(worse.size, 1.0 / worse.size)
    eps = 1.0 / worse.size
    chosen = []
    for _ in range(n_rounds):
        best = None
        for f in range(X.shape[1]):
            values = np.unique(X[:, f])
            for theta in (values[:-1] + values[1:]) / 2:
                h = (X[:, f] > theta).astype(float)
                r = np.sum(d * (h[better] - h[worse]))
                if best is None or abs(r) > abs(best[2]):
                    best = (f, theta, r)
        f, theta, r = best
        h = (X[:, f] > theta).astype(float)
        if alpha_rule == "exact":
            p = d[(h[better] == 1) & (h[worse] == 0)].sum()
            q = d[(h[worse] == 1) & (h[better] == 0)].sum()
        else:
            p, q = (1 + r) / 2, (1 - r) / 2
        alpha = 0.5 * np.log((p + eps) / (q + eps))
        d = d * np.exp(alpha * (h[worse] - h[better]))
        d /= d.sum()
        chosen.append((f, theta, alpha))
    return chosen


def tied_data(seed, n=30, d=4):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, d)).astype(float)  # ties in x
    y = np.round(X[:, 0] - 0.7 * X[:, 1] + rng.normal(scale=1.5, size=n))  # ties in y
    return X, y


@pytest.mark.parametrize("alpha_rule", ["exact", "approx"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_explicit_pair_implementation(seed, alpha_rule):
    X, y = tied_data(seed)
    assert len(np.unique(y)) < len(y) and len(np.unique(X[:, 0])) < len(y)
    rounds = 8
    model = RankBoost(n_rounds=rounds, alpha_rule=alpha_rule).fit(X, y)
    expected = explicit_pair_rankboost(X, y, rounds, alpha_rule)
    assert model.features_.tolist() == [f for f, _, _ in expected]
    assert model.thresholds_.tolist() == [t for _, t, _ in expected]
    np.testing.assert_allclose(model.alphas_, [a for _, _, a in expected], rtol=1e-9)


def test_uses_negatively_correlated_features():
    # Larger x is slower: every useful threshold ranks worse items higher, so
    # only negative steps help (RankLib-style alpha > 0 could not use x at all).
    X = np.linspace(0, 1, 20)[:, None]
    model = RankBoost(n_rounds=20).fit(X, 3 * X[:, 0] + 1)
    assert model.n_rounds_ > 0 and (model.alphas_ < 0).all()


def test_greater_is_better_is_minus_y():
    X, y = tied_data(4)
    up = RankBoost(n_rounds=10, greater_is_better=True).fit(X, -y)
    down = RankBoost(n_rounds=10).fit(X, y)
    np.testing.assert_allclose(up.predict(X), -down.predict(X))
    assert up.score(X, -y) == pytest.approx(down.score(X, y))


@pytest.mark.parametrize("transform", [np.exp, lambda x: -(x**3)])
def test_monotone_function_ranked_perfectly(transform):
    rng = np.random.default_rng(5)
    X = rng.uniform(-2, 2, size=(60, 3))
    y = transform(X[:, 1])
    model = RankBoost().fit(X, y)
    assert kendall_tau(y, model.predict(X)) == 1.0


def test_predict_orders_like_time():
    X = np.arange(10.0)[:, None]
    y = np.arange(10.0)  # larger x is slower
    best_first = np.argsort(RankBoost().fit(X, y).predict(X))
    assert best_first.tolist() == list(range(10))


def test_noisy_monotone_function_generalises():
    rng = np.random.default_rng(6)
    X = rng.uniform(0, 1, size=(600, 6))
    y = np.exp(2 * X[:, 0]) + X[:, 1] - 2 * X[:, 2] + rng.normal(scale=0.3, size=600)
    model = RankBoost().fit(X[:400], y[:400])
    assert model.score(X[400:], y[400:]) > 0.5


def test_long_training_stays_finite():
    # Margins far beyond exp's range: the potentials are computed in logs.
    X = np.arange(40.0)[:, None]
    model = RankBoost(n_rounds=2000).fit(X, X[:, 0])
    assert np.isfinite(model.alphas_).all()
    assert kendall_tau(X[:, 0], model.predict(X)) == 1.0


def test_no_pairs_or_no_cuts_learn_nothing():
    X = np.random.default_rng(0).normal(size=(5, 2))
    assert RankBoost().fit(X, np.ones(5)).n_rounds_ == 0
    assert np.all(RankBoost().fit(X, np.ones(5)).predict(X) == 0)
    assert RankBoost().fit(np.ones((5, 2)), np.arange(5.0)).n_rounds_ == 0


def test_stops_when_nothing_left_to_order():
    X = np.array([[0.0], [1.0]])
    model = RankBoost(n_rounds=50).fit(X, np.array([2.0, 1.0]))
    assert model.n_rounds_ < 50 or np.all(model.features_ == 0)
    assert model.predict(X)[1] < model.predict(X)[0]


def test_unfitted_predict_raises():
    with pytest.raises(NotFittedError):
        RankBoost().predict(np.zeros((1, 2)))


@pytest.mark.parametrize(
    "params, message",
    [
        ({"n_rounds": -1}, "n_rounds must be an integer >= 0; got -1"),
        ({"n_rounds": 2.5}, "n_rounds must be an integer >= 0; got 2.5"),
        ({"alpha_rule": "bound"}, "alpha_rule must be one of 'exact', 'approx'; got 'bound'"),
    ],
)
def test_bad_parameters_name_themselves(params, message):
    with pytest.raises(PredictorError, match=message):
        RankBoost(**params).fit(np.zeros((3, 1)), np.arange(3.0))
