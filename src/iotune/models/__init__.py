"""Predictors of a configuration's time or cost, and the metrics that judge them.

``rankboost``: RankBoost ranker (paper 000, Algorithm 2; Freund et al. 2003).
``pruned_tree``: CART with cross-validated cost-complexity pruning (paper 000,
Sec. 4.2.1).  ``registry``: predictors by name.  ``metrics``: error and ranking
metrics, including top-k regret.  Every predictor is a scikit-learn estimator.
"""

from iotune.models.errors import PredictorError
from iotune.models.metrics import (
    TopKRegret,
    average_relative_error,
    kendall_tau,
    mae,
    mape,
    r2,
    rmse,
    top_k_regret,
)
from iotune.models.pruned_tree import PrunedTree
from iotune.models.rankboost import RankBoost
from iotune.models.registry import PREDICTORS, cart, linear, make_predictor, random_forest, rankboost

__all__ = [
    "PREDICTORS",
    "PredictorError",
    "PrunedTree",
    "RankBoost",
    "TopKRegret",
    "average_relative_error",
    "cart",
    "kendall_tau",
    "linear",
    "mae",
    "make_predictor",
    "mape",
    "r2",
    "random_forest",
    "rankboost",
    "rmse",
    "top_k_regret",
]
