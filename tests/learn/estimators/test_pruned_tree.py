"""CART pruned by cross-validated cost-complexity (paper 000, Sec. 4.2.1)."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeRegressor

from iotune.learn.errors import PredictorError
from iotune.learn.estimators.pruned_tree import PrunedTree, pruned_predictions


def noisy_step(seed, n=200):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 4))
    y = 3.0 * (X[:, 0] > 0.5) + (X[:, 1] > 0.3) + rng.normal(scale=0.5, size=n)
    return X, y


def test_pruned_predictions_equal_refitting_with_ccp_alpha():
    X, y = noisy_step(0)
    tree = DecisionTreeRegressor(random_state=0).fit(X, y)
    path = tree.cost_complexity_pruning_path(X, y).ccp_alphas
    alphas = np.append(np.sqrt(path[:-1] * path[1:]), path[-1])[::7]
    queries = np.random.default_rng(1).uniform(size=(50, 4))
    got = pruned_predictions(tree, queries, alphas)
    for j, alpha in enumerate(alphas):
        refit = DecisionTreeRegressor(random_state=0, ccp_alpha=alpha).fit(X, y)
        np.testing.assert_allclose(got[:, j], refit.predict(queries))


def test_pruning_removes_noise_splits():
    X, y = noisy_step(2)
    model = PrunedTree().fit(X, y)
    full = DecisionTreeRegressor(random_state=0).fit(X, y)
    assert model.estimator_.get_n_leaves() < full.get_n_leaves() / 5
    assert model.cv_errors_[model.cv_alphas_ == model.ccp_alpha_][0] == model.cv_errors_.min()
    X_test, y_test = noisy_step(3)
    assert model.score(X_test, y_test) > full.score(X_test, y_test)


def test_noise_free_data_is_not_pruned_away():
    X = np.linspace(0, 1, 40)[:, None]
    y = np.floor(4 * X[:, 0])
    model = PrunedTree().fit(X, y)
    np.testing.assert_array_equal(model.predict(X), y)


def test_tiny_data_fits():
    assert PrunedTree().fit([[1.0]], [2.0]).predict([[5.0]]).tolist() == [2.0]
    assert PrunedTree().fit([[1.0], [2.0], [3.0]], [1.0, 2.0, 3.0]).predict([[2.0]]).shape == (1,)


def test_seed_makes_fits_repeatable():
    X, y = noisy_step(4)
    a, b = PrunedTree(random_state=3).fit(X, y), PrunedTree(random_state=3).fit(X, y)
    assert a.ccp_alpha_ == b.ccp_alpha_


def test_unfitted_predict_raises():
    with pytest.raises(NotFittedError):
        PrunedTree().predict([[1.0]])


def test_bad_n_folds_names_itself():
    with pytest.raises(PredictorError, match="n_folds must be an integer >= 2; got 1"):
        PrunedTree(n_folds=1).fit([[1.0], [2.0]], [1.0, 2.0])


def test_candidates_keep_the_full_tree_and_the_root():
    X, y = noisy_step(5, n=400)
    model = PrunedTree().fit(X, y)
    path = DecisionTreeRegressor(random_state=0).cost_complexity_pruning_path(X, y).ccp_alphas
    assert model.cv_alphas_[0] == 0.0 and model.cv_alphas_[-1] == path[-1]
    assert np.all(np.diff(model.cv_alphas_) > 0)
    bins = np.floor(40 * np.log10(model.cv_alphas_[1:]))  # one candidate per 1/40 decade
    assert np.unique(bins).size == bins.size < path.size
