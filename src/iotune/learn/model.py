"""A predictor trained on one space's measurements, with what it needs to score new configurations.

``target`` says what the predictor's output means; for every target, lower
predictions are better except ``bandwidth`` (MiB/s), so ranking code asks
:attr:`TrainedModel.lower_is_better`.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from iotune.space import Space
from iotune.stored import StoredStudy

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
      ``instances``, ``price_per_hour``; see :meth:`Dataset.from_study`).
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


def save_model(study: StoredStudy, model: TrainedModel) -> int:
    """Store ``model`` in ``study`` in the safe format (:mod:`iotune.learn.persist`); return its row id."""
    from iotune.learn.persist import FORMAT, dump_estimator

    record = {"name": model.name, "predictor": model.predictor_name, "target": model.target,
              "categorical": model.categorical, "params": model.params, "dataset_options": model.dataset_options,
              "data_hash": model.data_hash, "space_hash": model.space.hash, "n_samples": model.n_samples,
              "metrics": model.metrics, "created_at": model.created_at}
    return study.store.save_model(study.id, record, dump_estimator(model.estimator), FORMAT)


def load_model(study: StoredStudy, name: str | None = None) -> TrainedModel:
    """The study's model ``name`` (its newest when None), loaded without running any code from the store.

    LearningError when the model was stored in another format (a pickle from an
    older iotune: retrain it), was trained on another space, or is malformed.
    """
    from iotune.learn.errors import LearningError
    from iotune.learn.persist import FORMAT, load_estimator

    info, blob, fmt = study.store.model_blob(study.name, name)
    if fmt != FORMAT:
        raise LearningError(f"model {info.name!r} of study {study.name!r} was stored as a {fmt} by an older iotune, "
                            f"which iotune no longer loads (it could run code); retrain it with "
                            f"`iotune train --study {shlex.quote(study.name)}`")
    space = study.space
    if info.space_hash != space.hash:
        raise LearningError(f"model {info.name!r}: model trained on another space (space hash {info.space_hash}, "
                            f"study {study.name!r} has {space.hash}); retrain it with `iotune train`")
    try:
        estimator = load_estimator(blob)
    except LearningError as exc:
        raise LearningError(f"model {info.name!r} of study {study.name!r}: {exc}; retrain it with "
                            "`iotune train`") from None
    return TrainedModel(name=info.name, predictor_name=info.predictor, estimator=estimator, space=space,
                        categorical=info.categorical, target=info.target, data_hash=info.data_hash, study=info.study,
                        n_samples=info.n_samples, metrics=info.metrics, created_at=info.created_at,
                        params=info.params, dataset_options=info.dataset_options)
