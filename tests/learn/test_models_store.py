"""Trained models in the store: round trip, listing, replacement, space check, v1 upgrade, never a pickle."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa

from iotune.errors import StoreError
from iotune.learn import TrainedModel, train
from iotune.learn.errors import LearningError
from iotune.learn.model import load_model, save_model
from iotune.store import SCHEMA_VERSION, Store
from iotune.store.schema import models
from iotune.stored import StoredStudy
from tests.learn import synthetic


@pytest.mark.parametrize("predictor", ["cart", "rankboost", "forest", "linear"])
def test_model_round_trips(store, predictor, synth):
    model = train(synth, predictor)
    save_model(synth, model)
    loaded = load_model(synth)
    assert isinstance(loaded, TrainedModel)
    assert (loaded.name, loaded.predictor_name, loaded.target, loaded.data_hash, loaded.n_samples) == (
        f"{predictor}-time", predictor, "time", model.data_hash, 192)
    assert loaded.metrics == model.metrics and loaded.space == model.space
    configs = [c.to_dict() for c in synthetic.space().enumerate()]
    np.testing.assert_array_equal(loaded.predict(configs), model.predict(configs))


def test_metrics_listing_and_replacement(store, synth):
    cart = train(synth, "cart", name="tree")
    assert set(cart.metrics) == {"in_sample", "cv", "cv_folds", "dropped"} and cart.metrics["cv"]["r2"] > 0.8
    first = save_model(synth, cart)
    save_model(synth, train(synth, "linear", target="bandwidth"))
    assert [(m.name, m.target) for m in store.list_models("synth")] == [("tree", "time"), ("linear-bandwidth",
                                                                                         "bandwidth")]
    assert load_model(synth).name == "linear-bandwidth"
    assert load_model(synth, "tree").predictor_name == "cart"
    second = save_model(synth, train(synth, "cart", name="tree", cv_folds=3))
    assert second != first and len(store.list_models()) == 2
    assert load_model(synth, "tree").metrics["cv_folds"] == 3


def test_load_errors(store, synth):
    with pytest.raises(StoreError, match="no model"):
        load_model(synth)
    save_model(synth, train(synth, "linear"))
    with pytest.raises(StoreError, match="no model 'other'"):
        load_model(synth, "other")
    with store._write() as conn:
        conn.execute(models.update().values(space_hash="0123456789abcdef"))
    with pytest.raises(LearningError, match="model trained on another space"):
        load_model(synth)


def test_delete_study_deletes_its_models(store, synth):
    save_model(synth, train(synth, "linear"))
    store.delete_study("synth")
    assert store.list_models() == []


def test_version_1_database_upgrades_and_saves_a_model(tmp_path):
    """The v1 dump of tests/store opens as the current version and takes a model (trained on synthetic data)."""
    path = tmp_path / "v1.db"
    with sqlite3.connect(path) as conn:
        conn.executescript((Path(__file__).parents[1] / "store" / "data" / "schema_v1.sql").read_text())
    with Store(path) as store:
        with store._read() as conn:
            version = conn.execute(sa.text("SELECT value FROM meta WHERE key = 'schema_version'")).scalar()
            assert version == str(SCHEMA_VERSION)
            assert sa.inspect(conn).has_table("models")
        assert len(store.trials("legacy")) == 4
        synthetic.build_study(store, repeats=1)
        synth = StoredStudy.open(store, "synth")
        save_model(synth, train(synth, "cart"))
        assert [m.name for m in store.list_models()] == ["cart-time"]
    with Store(path) as reopened:
        assert load_model(StoredStudy.open(reopened, "synth")).n_samples == 96


def test_a_pickled_model_from_an_older_store_is_never_loaded(store, tmp_path, synth):
    """A store from someone else may hold a pickle that runs a command when loaded: it must stay data."""
    import pickle

    marker = tmp_path / "owned"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    model = train(synth, "linear")
    save_model(synth, model)
    with store._write() as conn:
        conn.execute(models.update().values(blob=pickle.dumps(Evil()), format="pickle"))
    with pytest.raises(LearningError, match="stored as a pickle by an older iotune.*retrain"):
        load_model(synth)
    with store._write() as conn:  # a pickle disguised as the safe format is not loaded either
        conn.execute(models.update().values(format="iotune-model-1"))
    with pytest.raises(LearningError, match="not in iotune's model format"):
        load_model(synth)
    assert not marker.exists()


@pytest.mark.parametrize("predictor, params", [("cart", {}), ("rankboost", {}), ("forest", {"n_estimators": 5}),
                                               ("linear", {}), ("cart", {"log_target": True})])
def test_every_model_round_trips_without_pickle(store, predictor, params, synth):
    model = train(synth, predictor, cv_folds=2, **params)
    save_model(synth, model)
    loaded = load_model(synth)
    X = synthetic_features(synth)
    assert np.array_equal(loaded.predict_encoded(X), model.predict_encoded(X))


def test_a_crafted_model_naming_another_class_is_refused(store, synth):
    import io
    import json
    import zipfile

    save_model(synth, train(synth, "linear"))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("model.json", json.dumps({"format": "iotune-model-1", "estimator": {
            "object": "subprocess.Popen", "params": {"dict": {"args": "touch /tmp/x"}}, "fitted": {"dict": {}}}}))
        empty = io.BytesIO()
        np.savez(empty)
        archive.writestr("arrays.npz", empty.getvalue())
    with store._write() as conn:
        conn.execute(models.update().values(blob=buffer.getvalue()))
    with pytest.raises(LearningError, match="names class 'subprocess.Popen', which iotune does not load"):
        load_model(synth)


def synthetic_features(synth):
    from iotune.learn import Dataset

    return Dataset.from_study(synth).X[:20]
