"""Errors of the estimators, their metrics, datasets, training, evaluation and explanation."""

from iotune.errors import IotuneError


class LearningError(IotuneError, ValueError):
    """A study cannot be learned from as asked: no such study, no COMPLETE trials, unknown target, ..."""


class PredictorError(LearningError):
    """An estimator or metric got a name, parameter or data it cannot use.

    Examples: an unknown predictor name, ``n_rounds < 0``, metric inputs of
    different lengths, a relative error against a zero target, too few points
    for an interpolator.
    """
