"""Learning from the store: datasets, trained models, evaluation."""

from iotune.learning.model import TARGETS, TrainedModel

__all__ = ["TARGETS", "TrainedModel"]
