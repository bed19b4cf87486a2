"""The random baseline: scores that know nothing, against which every predictor's ranking is judged."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from iotune.learn.estimators.tags import score_tags


class RandomScores(BaseEstimator):
    """Uniform random scores in [0, 1): the ranking of a tuner that picks configurations at random.

    ``predict`` draws from a generator seeded by ``random_state`` and the number
    of rows, so equal inputs give equal scores (deterministic for a seed).  The
    scores are not estimates of y: only ranking metrics apply to them.
    """

    def __init__(self, random_state=0):
        self.random_state = random_state

    def __sklearn_tags__(self):
        return score_tags(super().__sklearn_tags__())

    def fit(self, X, y):
        validate_data(self, X, y, y_numeric=True, dtype=np.float64)
        self.fitted_ = True
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        seed = 0 if self.random_state is None else int(self.random_state)
        return np.random.default_rng([seed, X.shape[0]]).random(X.shape[0])
