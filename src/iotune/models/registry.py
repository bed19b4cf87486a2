"""Predictors by name: the models iotune learns a configuration's time or cost with.

Each entry of ``PREDICTORS`` is a function returning a fresh, unfitted
scikit-learn estimator, so any scikit-learn regressor can be added the same way.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from sklearn.base import BaseEstimator
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression

from iotune.models.errors import PredictorError
from iotune.models.pruned_tree import PrunedTree
from iotune.models.rankboost import RankBoost


def cart(random_state=0) -> PrunedTree:
    """CART tree pruned by cross-validated cost-complexity (paper 000, Sec. 4.2.1)."""
    return PrunedTree(random_state=random_state)


def rankboost(n_rounds=200, alpha_rule="exact", greater_is_better=False, random_state=None) -> RankBoost:
    """RankBoost ranker (paper 000, Algorithm 2); ``predict`` is a score, lower = better."""
    return RankBoost(
        n_rounds=n_rounds, alpha_rule=alpha_rule, greater_is_better=greater_is_better, random_state=random_state
    )


def random_forest(n_estimators=100, max_features=0.5, random_state=0) -> RandomForestRegressor:
    """Random forest; ``max_features`` < 1 because trying every feature per split is several times slower."""
    return RandomForestRegressor(n_estimators=n_estimators, max_features=max_features, random_state=random_state)


def linear() -> LinearRegression:
    """Ordinary least squares, the baseline every other predictor must beat."""
    return LinearRegression()


PREDICTORS: dict[str, Callable[..., BaseEstimator]] = {
    "cart": cart,
    "rankboost": rankboost,
    "forest": random_forest,
    "linear": linear,
}


def make_predictor(name: str, **params: Any) -> BaseEstimator:
    """Return a new predictor ``name`` built with ``params``; unknown names or parameters raise ``PredictorError``."""
    factory = PREDICTORS.get(name)
    if factory is None:
        raise PredictorError(f"unknown predictor {name!r}; choose one of: {', '.join(sorted(PREDICTORS))}")
    accepted = inspect.signature(factory).parameters
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        takes = ", ".join(accepted) or "no parameters"
        raise PredictorError(f"predictor {name!r} takes no parameter {', '.join(unknown)}; it takes: {takes}")
    return factory(**params)
