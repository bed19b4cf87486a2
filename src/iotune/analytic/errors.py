"""Errors of the analytic models."""

from iotune.errors import IotuneError


class ModelError(IotuneError, ValueError):
    """An analytic model got parameters or data it cannot use.

    Examples: an unstable queue (utilisation >= 1), a non-positive rate, a
    stripe count below 1, a negative size, measurements that do not determine
    the parameters.
    """
