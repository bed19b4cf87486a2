"""Predictors by name."""

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression

from iotune.errors import IotuneError
from iotune.learn.errors import PredictorError
from iotune.learn.estimators.pruned_tree import PrunedTree
from iotune.learn.estimators.rankboost import RankBoost
from iotune.learn.registry import PREDICTORS, make_predictor


def test_names_build_the_documented_estimators():
    assert isinstance(make_predictor("cart"), PrunedTree)
    assert isinstance(make_predictor("rankboost"), RankBoost)
    assert isinstance(make_predictor("linear"), LinearRegression)
    forest = make_predictor("forest", n_estimators=10)
    assert isinstance(forest, RandomForestRegressor)
    assert forest.get_params()["max_features"] == 0.5 and forest.n_estimators == 10


def test_params_are_passed_and_instances_are_fresh():
    assert make_predictor("cart", random_state=7).random_state == 7
    assert make_predictor("rankboost", n_rounds=3).n_rounds == 3
    assert make_predictor("linear") is not make_predictor("linear")


@pytest.mark.parametrize("name", sorted(PREDICTORS))
def test_every_predictor_fits_and_predicts(name):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(40, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=40)
    model = make_predictor(name).fit(X, y)
    assert model.predict(X).shape == (40,)


def test_unknown_name_lists_the_names():
    with pytest.raises(PredictorError, match=r"^predictor must be one of cart, rankboost, forest, linear, lsp, mars, "
                                             r"delaunay, got 'kriging'$"):
        make_predictor("kriging")
    with pytest.raises(PredictorError, match=r"^predictor must be one of cart, rankboost, forest, linear for "
                                             r"performance, got 'mars'$"):
        make_predictor("mars", "performance")


def test_one_registry_serves_both_purposes_and_tags_tell_rankers():
    from iotune.learn.baseline import RandomScores
    from iotune.learn.registry import PERFORMANCE, VARIABILITY, is_ranker

    assert set(PERFORMANCE) == {"cart", "rankboost", "forest", "linear"}
    assert VARIABILITY == ("lsp", "mars", "delaunay", "linear")
    rankers = {name for name in PERFORMANCE + VARIABILITY if is_ranker(make_predictor(name))}
    assert rankers == {"rankboost"}
    assert is_ranker(RandomScores())


def test_unknown_parameter_lists_the_accepted_ones():
    with pytest.raises(PredictorError, match="predictor 'cart' takes no parameter depth; it takes: random_state"):
        make_predictor("cart", depth=3)
    with pytest.raises(ValueError):
        make_predictor("linear", fit_intercept=False)


def test_error_class_joins_the_hierarchy():
    assert issubclass(PredictorError, IotuneError) and issubclass(PredictorError, ValueError)
