"""Errors of the budgeted tuner's numeric engine."""

from iotune.errors import IotuneError


class TransferError(IotuneError, ValueError):
    """A measurement table, prior, candidate set or observation is invalid."""
