"""Errors of the variability maps, their evaluation and the repeat planner."""

from iotune.errors import IotuneError
from iotune.learn.errors import PredictorError
from iotune.learn.registry import make_predictor


class VariabilityError(IotuneError, ValueError):
    """Repeats, map options or planner settings are invalid."""


def check_predictor(name: str) -> None:
    """Refuse a predictor name that is not a registered variability predictor (VariabilityError)."""
    try:
        make_predictor(name, "variability")
    except PredictorError as exc:
        raise VariabilityError(str(exc)) from None
