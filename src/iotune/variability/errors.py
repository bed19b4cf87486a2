"""Errors raised by the variability predictors."""

from iotune.errors import IotuneError


class VariabilityError(IotuneError, ValueError):
    """Training data, query points or predictor parameters are invalid."""
