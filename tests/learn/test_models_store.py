"""Trained models in the store (schema version 2): round trip, listing, replacement, space check, v1 upgrade."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa

from iotune.errors import StoreError
from iotune.learn import TrainedModel, train
from iotune.store import SCHEMA_VERSION, Store
from iotune.store.schema import models
from tests.learn import synthetic


@pytest.mark.parametrize("predictor", ["cart", "rankboost", "forest", "linear"])
def test_model_round_trips(store, predictor):
    model = train(store, "synth", predictor)
    store.save_model("synth", model)
    loaded = store.load_model("synth")
    assert isinstance(loaded, TrainedModel)
    assert (loaded.name, loaded.predictor_name, loaded.target, loaded.data_hash, loaded.n_samples) == (
        f"{predictor}-time", predictor, "time", model.data_hash, 192)
    assert loaded.metrics == model.metrics and loaded.space == model.space
    configs = [c.to_dict() for c in synthetic.space().enumerate()]
    np.testing.assert_array_equal(loaded.predict(configs), model.predict(configs))


def test_metrics_listing_and_replacement(store):
    cart = train(store, "synth", "cart", name="tree")
    assert set(cart.metrics) == {"in_sample", "cv", "cv_folds", "dropped"} and cart.metrics["cv"]["r2"] > 0.8
    first = store.save_model("synth", cart)
    store.save_model("synth", train(store, "synth", "linear", target="bandwidth"))
    assert [(m.name, m.target) for m in store.list_models("synth")] == [("tree", "time"), ("linear-bandwidth",
                                                                                         "bandwidth")]
    assert store.load_model("synth").name == "linear-bandwidth"
    assert store.load_model("synth", "tree").predictor_name == "cart"
    second = store.save_model("synth", train(store, "synth", "cart", name="tree", cv_folds=3))
    assert second != first and len(store.list_models()) == 2
    assert store.load_model("synth", "tree").metrics["cv_folds"] == 3


def test_load_errors(store):
    with pytest.raises(StoreError, match="no model"):
        store.load_model("synth")
    store.save_model("synth", train(store, "synth", "linear"))
    with pytest.raises(StoreError, match="no model 'other'"):
        store.load_model("synth", "other")
    with store._write() as conn:
        conn.execute(models.update().values(space_hash="0123456789abcdef"))
    with pytest.raises(StoreError, match="model trained on another space"):
        store.load_model("synth")


def test_delete_study_deletes_its_models(store):
    store.save_model("synth", train(store, "synth", "linear"))
    store.delete_study("synth")
    assert store.list_models() == []


def test_version_1_database_upgrades_and_saves_a_model(tmp_path):
    """The v1 dump of tests/store opens as version 2 and takes a model (trained on synthetic test data)."""
    path = tmp_path / "v1.db"
    with sqlite3.connect(path) as conn:
        conn.executescript((Path(__file__).parents[1] / "store" / "data" / "schema_v1.sql").read_text())
    with Store(path) as store:
        with store._read() as conn:
            version = conn.execute(sa.text("SELECT value FROM meta WHERE key = 'schema_version'")).scalar()
            assert version == str(SCHEMA_VERSION) == "2"
            assert sa.inspect(conn).has_table("models")
        assert len(store.trials("legacy")) == 4
        synthetic.build_study(store, repeats=1)
        store.save_model("synth", train(store, "synth", "cart"))
        assert [m.name for m in store.list_models()] == ["cart-time"]
    with Store(path) as reopened:
        assert reopened.load_model("synth").n_samples == 96
