"""Train a predictor on a study's measurements and package it as a :class:`TrainedModel`."""

from __future__ import annotations

from datetime import datetime, timezone

from iotune.learn.dataset import Dataset
from iotune.learn.errors import LearningError
from iotune.learn.model import TrainedModel
from iotune.learn.registry import PERFORMANCE as PREDICTORS
from iotune.learn.scoring import build, cross_validate, in_sample
from iotune.stored import StoredStudy


def train(study: StoredStudy, predictor: str = "cart", target: str = "time", categorical: str = "onehot",
          name: str | None = None, *, phase: str | None = None, instances: int = 1, price_per_hour: float = 1.0,
          cv_folds: int = 5, seed: int = 0, **params) -> TrainedModel:
    """Fit ``predictor`` (cart, rankboost, forest, linear) on the COMPLETE trials of ``study``.

    ``target``, ``phase``, ``instances`` and ``price_per_hour`` choose the
    training rows (:meth:`Dataset.from_study`); ``params`` go to the predictor
    (e.g. ``n_estimators=200`` for forest).  ``metrics`` holds the in-sample
    metrics and the mean over ``cv_folds`` folds, each holding out whole configurations
    (:mod:`iotune.learn.scoring`),
    plus ``dropped`` rows.  The model is named ``name`` or "<predictor>-<target>".
    Nothing is saved: :func:`iotune.learn.model.save_model` does that.
    """
    if predictor not in PREDICTORS:
        raise LearningError(f"unknown predictor {predictor!r}; choose one of: {', '.join(PREDICTORS)}")
    dataset = Dataset.from_study(study, target, phase=phase, categorical=categorical,
                                 instances=instances, price_per_hour=price_per_hour)
    estimator = build(predictor, dataset, seed, **params).fit(dataset.X, dataset.y)
    metrics = {
        "in_sample": in_sample(estimator, dataset),
        "cv": cross_validate(predictor, dataset, cv_folds, seed, **params),
        "cv_folds": min(cv_folds, len(set(dataset.config_keys))),
        "dropped": dataset.dropped,
    }
    return TrainedModel(
        name=name or f"{predictor}-{target}",
        predictor_name=predictor,
        estimator=estimator,
        space=dataset.space,
        categorical=categorical,
        target=target,
        data_hash=dataset.data_hash,
        study=dataset.study,
        n_samples=dataset.n_samples,
        metrics=metrics,
        created_at=datetime.now(timezone.utc).isoformat(timespec="microseconds"),
        params=dict(params),
        dataset_options=dict(dataset.options),
    )
