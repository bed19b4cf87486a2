"""Every estimator iotune learns with, by name: one registry for performance and variability predictors.

Each entry builds a fresh, unfitted scikit-learn estimator, so any scikit-learn
regressor can be added the same way.  ``purposes`` says what an estimator is
offered for: ``performance`` (a configuration's time, bandwidth or cost;
paper 000 Sec. 4.2, paper 001) and ``variability`` (the spread of repeated
runs; paper 003 Sec. 5).  Rankers, whose predictions are scores that only
order configurations, are recognised by their estimator tags
(:func:`is_ranker`), not by name.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iotune.learn.errors import PredictorError

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

__all__ = ["PERFORMANCE", "PREDICTORS", "REGISTRY", "VARIABILITY", "is_ranker", "make_predictor"]


def is_ranker(estimator) -> bool:
    """True when ``estimator``'s predictions are ranking scores (its estimator tags say so)."""
    from iotune.learn.estimators.tags import is_ranker as scores_only

    return scores_only(estimator)


def cart(random_state=0):
    """CART tree pruned by cross-validated cost-complexity (paper 000, Sec. 4.2.1)."""
    from iotune.learn.estimators.pruned_tree import PrunedTree

    return PrunedTree(random_state=random_state)


def rankboost(n_rounds=200, alpha_rule="exact", greater_is_better=False, random_state=None):
    """RankBoost ranker (paper 000, Algorithm 2); ``predict`` is a score, lower = better."""
    from iotune.learn.estimators.rankboost import RankBoost

    return RankBoost(n_rounds=n_rounds, alpha_rule=alpha_rule, greater_is_better=greater_is_better,
                     random_state=random_state)


def random_forest(n_estimators=100, max_features=0.5, random_state=0):
    """Random forest (paper 001, Sec. V); ``max_features`` < 1 because trying every feature per split is slower."""
    from sklearn.ensemble import RandomForestRegressor

    return RandomForestRegressor(n_estimators=n_estimators, max_features=max_features, random_state=random_state)


def linear():
    """Ordinary least squares with an intercept: the baseline every other predictor must beat (paper 003's LR)."""
    from sklearn.linear_model import LinearRegression

    return LinearRegression()


def lsp():
    """Modified linear Shepard interpolation (paper 003, Sec. 5.1)."""
    from iotune.learn.estimators.lsp import LinearShepard

    return LinearShepard()


def mars():
    """Multivariate adaptive regression splines with GCV pruning (paper 003, Sec. 5.2)."""
    from iotune.learn.estimators.mars import Mars

    return Mars()


def delaunay():
    """Delaunay interpolation, projecting queries outside the convex hull onto it (paper 003, Sec. 5.3)."""
    from iotune.learn.estimators.delaunay import DelaunayInterpolator

    return DelaunayInterpolator()


@dataclass(frozen=True)
class Entry:
    """A registered estimator: its factory and what it is offered for."""

    factory: Callable[..., BaseEstimator]
    purposes: tuple[str, ...]


REGISTRY: dict[str, Entry] = {
    "cart": Entry(cart, ("performance",)),
    "rankboost": Entry(rankboost, ("performance",)),
    "forest": Entry(random_forest, ("performance",)),
    "linear": Entry(linear, ("performance", "variability")),
    "lsp": Entry(lsp, ("variability",)),
    "mars": Entry(mars, ("variability",)),
    "delaunay": Entry(delaunay, ("variability",)),
}

PERFORMANCE = tuple(name for name, entry in REGISTRY.items() if "performance" in entry.purposes)
"""Predictors of a configuration's time, bandwidth or cost (``iotune train --predictor``)."""
VARIABILITY = ("lsp", "mars", "delaunay", "linear")
"""Predictors of the spread of repeats, in paper 003's Table 2 order (``iotune variability``)."""
PREDICTORS = PERFORMANCE


def accepted_parameters(name: str) -> dict[str, inspect.Parameter]:
    """The keyword arguments the factory of ``name`` takes."""
    return dict(inspect.signature(_entry(name).factory).parameters)


def _entry(name: str, purpose: str | None = None) -> Entry:
    entry = REGISTRY.get(name)
    if entry is None or (purpose is not None and purpose not in entry.purposes):
        offered = [n for n, e in REGISTRY.items() if purpose is None or purpose in e.purposes]
        what = f" for {purpose}" if purpose else ""
        raise PredictorError(f"predictor must be one of {', '.join(offered)}{what}, got {name!r}")
    return entry


def make_predictor(name: str, purpose: str | None = None, **params: Any) -> BaseEstimator:
    """A new estimator ``name`` built with ``params``; unknown names or parameters raise ``PredictorError``.

    ``purpose`` ("performance", "variability"), when given, also refuses an
    estimator not offered for it.
    """
    entry = _entry(name, purpose)
    accepted = accepted_parameters(name)
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        takes = ", ".join(accepted) or "no parameters"
        raise PredictorError(f"predictor {name!r} takes no parameter {', '.join(unknown)}; it takes: {takes}")
    return entry.factory(**params)
