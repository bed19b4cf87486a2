"""Rows of the ``models`` table: trained predictors (an opaque ``blob`` in a named ``format``) and provenance.

The store only moves bytes: :mod:`iotune.learn.model` writes and reads the blob
in a format that cannot run code (:mod:`iotune.learn.persist`).  Rows written
by iotune before schema 3 are ``pickle`` and are never loaded.  Exports and
imports (:mod:`iotune.store.exchange`) leave models out: a model is rebuilt
from the trials with ``iotune train``.
"""

from __future__ import annotations

import sqlalchemy as sa

from iotune.store import queries
from iotune.store.decode import model_record as record
from iotune.store.records import ModelRecord
from iotune.store.schema import models, studies


def insert(conn: sa.Connection, study_id: int, model: dict, blob: bytes, fmt: str) -> int:
    """Store a model (``model``: name, predictor, target, categorical, params, dataset_options, data_hash,
    space_hash, n_samples, metrics, created_at) under its name, replacing an older one of that name."""
    values = {
        "name": model["name"],
        "study_id": study_id,
        "predictor": model["predictor"],
        "target": model["target"],
        "categorical": model["categorical"],
        "params_json": queries.dumps({"predictor": model.get("params", {}),
                                      "dataset": model.get("dataset_options", {})}, "model params"),
        "data_hash": model["data_hash"],
        "space_hash": model["space_hash"],
        "n_samples": int(model["n_samples"]),
        "metrics_json": queries.dumps(model.get("metrics", {}), "model metrics"),
        "created_at": model.get("created_at") or queries.now(),
        "blob": bytes(blob),
        "format": fmt,
    }
    conn.execute(models.delete().where(models.c.study_id == study_id, models.c.name == model["name"]))
    return queries.inserted_id(conn.execute(models.insert().values(**values)))


def _query():
    return sa.select(models, studies.c.name.label("study")).join(studies, studies.c.id == models.c.study_id)


def select(conn: sa.Connection, study_id: int | None) -> list[ModelRecord]:
    """Model records (without their estimators), by study name, then creation time."""
    query = _query().order_by(studies.c.name, models.c.created_at, models.c.id)
    if study_id is not None:
        query = query.where(models.c.study_id == study_id)
    return [record(row) for row in conn.execute(query)]


def latest(conn: sa.Connection, study_id: int, name: str | None):
    """The row of model ``name`` of the study, or its newest model when ``name`` is None; None if absent."""
    query = _query().where(models.c.study_id == study_id)
    if name is not None:
        query = query.where(models.c.name == name)
    return conn.execute(query.order_by(models.c.created_at.desc(), models.c.id.desc()).limit(1)).first()
