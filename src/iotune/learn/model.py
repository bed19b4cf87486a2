"""A predictor trained on one space's measurements, with what it needs to score new configurations.

``target`` says what the predictor's output means; for every target, lower
predictions are better except ``bandwidth`` (MiB/s), so ranking code asks
:attr:`TrainedModel.lower_is_better`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from iotune.space import Space

TARGETS = ("time", "bandwidth", "cost", "relative")


@dataclass
class TrainedModel:
    """A fitted estimator, the space and encoding it was trained with, and its provenance.

    - ``target``: "time" (seconds of I/O per trial), "bandwidth" (MiB/s),
      "cost" (time x instances x unit price), or "relative" (baseline time /
      time, paper 000 Algorithm 1: higher is better, like bandwidth).
    - ``data_hash``: sha1 of the training rows, so a model is never confused
      with one trained on other data.
    - ``params``: the keyword arguments the predictor was built with.
    - ``dataset_options``: how the training rows were made (``phase``,
      ``instances``, ``price_per_hour``; see :meth:`Dataset.from_store`).
    - ``metrics``: ``{"in_sample": {...}, "cv": {...}}`` as :func:`train` computes them.
    """

    name: str
    predictor_name: str
    estimator: Any
    space: Space
    categorical: str
    target: str
    data_hash: str
    study: str
    n_samples: int
    metrics: dict = field(default_factory=dict)
    created_at: str = ""
    params: dict = field(default_factory=dict)
    dataset_options: dict = field(default_factory=dict)

    @property
    def lower_is_better(self) -> bool:
        return self.target not in ("bandwidth", "relative")

    @property
    def space_hash(self) -> str:
        return self.space.hash

    @property
    def encoder(self):
        return self.space.encoder(self.categorical)

    def predict_encoded(self, features: np.ndarray) -> np.ndarray:
        return np.asarray(self.estimator.predict(features), dtype=float)

    def predict(self, configurations) -> np.ndarray:
        """Predictions for configurations (Configuration objects or stored dicts)."""
        return self.predict_encoded(self.space.encode(configurations, self.categorical))
