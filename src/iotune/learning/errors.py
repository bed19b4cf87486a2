"""Errors of dataset building, training, evaluation and explanation."""

from iotune.errors import IotuneError


class LearningError(IotuneError, ValueError):
    """A study cannot be learned from as asked: no such study, no COMPLETE trials, unknown target, ..."""
