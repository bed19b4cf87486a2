"""Estimator tags iotune adds to scikit-learn's: which estimators predict ranking scores, not values."""

from __future__ import annotations

from dataclasses import dataclass

from sklearn.utils import get_tags
from sklearn.utils._tags import RegressorTags


@dataclass(slots=True)
class ScoreTags(RegressorTags):
    """Regressor tags of an estimator whose predictions are scores: only their order means something."""

    scores_only: bool = True


def score_tags(tags):
    """``tags`` (from ``super().__sklearn_tags__()``) marked as those of a ranker."""
    tags.estimator_type = "regressor"
    poor = tags.regressor_tags.poor_score if tags.regressor_tags is not None else False
    tags.regressor_tags = ScoreTags(poor_score=poor)
    return tags


def is_ranker(estimator) -> bool:
    """True when ``estimator``'s predictions are ranking scores (its tags carry ``scores_only``)."""
    return bool(getattr(get_tags(estimator).regressor_tags, "scores_only", False))
