"""Argument checks of the elastic-cache models (paper 002) beyond ``_validate``; each failure is one ModelError line."""

import math
import numbers

from iotune.analytic._validate import count, positive
from iotune.analytic.errors import ModelError

__all__ = ["count", "fraction", "nonnegative", "positive"]


def nonnegative(name: str, value) -> float:
    """``value`` as a finite float >= 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ModelError(f"{name} must be a number >= 0, got {value!r}")
    value = float(value)
    if not (math.isfinite(value) and value >= 0):
        raise ModelError(f"{name} must be a finite number >= 0, got {value!r}")
    return value


def fraction(name: str, value) -> float:
    """``value`` as a float in (0, 1], e.g. a utilisation threshold."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ModelError(f"{name} must be a number in (0, 1], got {value!r}")
    value = float(value)
    if not 0 < value <= 1:
        raise ModelError(f"{name} must be in (0, 1], got {value!r}")
    return value
