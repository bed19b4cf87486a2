"""Argument checks shared by the analytic models; each failure is one ModelError line."""

import math
import numbers

import numpy as np

from iotune.analytic.errors import ModelError
from iotune.errors import UnitError
from iotune.units import parse_size

# Lustre's own limit is 2000 OSTs per file (LOV_MAX_STRIPE_COUNT); this cap only
# bounds the memory of the harmonic-sum tables.
MAX_STRIPE_COUNT = 1_000_000


def positive(name: str, value) -> float:
    """``value`` as a finite float > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ModelError(f"{name} must be a positive number, got {value!r}")
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ModelError(f"{name} must be a positive finite number, got {value!r}")
    return value


def sizes(value, name: str = "M") -> np.ndarray:
    """Sizes in bytes as a float array; a string goes through ``iotune.units.parse_size``."""
    if isinstance(value, str):
        try:
            return np.asarray(float(parse_size(value)))
        except UnitError as err:
            raise ModelError(f"{name}: {err}") from None
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(f"{name} must be a size in bytes, got {value!r}") from None
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ModelError(f"{name} must be a finite size >= 0 bytes, got {value!r}")
    return array


def stripe_counts(value, name: str = "n") -> np.ndarray:
    """Stripe counts as an int64 array, each in 1..MAX_STRIPE_COUNT."""
    array = np.asarray(value)
    if array.dtype == bool or not (
        np.issubdtype(array.dtype, np.integer)
        or (np.issubdtype(array.dtype, np.floating) and np.all(np.mod(array, 1) == 0))
    ):
        raise ModelError(f"{name} must be a whole number of OSTs, got {value!r}")
    if array.size == 0 or np.any(array < 1) or np.any(array > MAX_STRIPE_COUNT):
        raise ModelError(f"{name} must be between 1 and {MAX_STRIPE_COUNT} OSTs, got {value!r}")
    return array.astype(np.int64)


def count(name: str, value, minimum: int = 1) -> int:
    """A Python int >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ModelError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)
