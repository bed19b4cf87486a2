"""The error a screening raises: a design that cannot be run or analysed as it stands."""

from iotune.errors import IotuneError


class ScreeningError(IotuneError, ValueError):
    """A screening design is unusable (invalid rows, bad levels) or its study is incomplete."""
