"""Errors of the predictors and their metrics."""

from iotune.errors import IotuneError


class PredictorError(IotuneError, ValueError):
    """A predictor or metric got a name, parameter or data it cannot use.

    Examples: an unknown predictor name, ``n_rounds < 0``, metric inputs of
    different lengths, a relative error against a zero target.
    """
