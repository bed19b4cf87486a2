"""Platforms and studies."""

from __future__ import annotations

import pytest
from store_helpers import PLATFORM, complete, start, study

from iotune.errors import StoreError


def test_register_platform_is_idempotent(store):
    first = store.register_platform(PLATFORM)
    assert store.register_platform(dict(PLATFORM)) == first
    assert store.register_platform({**PLATFORM, "kernel": "6.2.0"}) != first


def test_platform_columns_feed_rows(store):
    platform = store.register_platform(PLATFORM)
    record = study(store)
    store.finish_trial(start(store, record.id, 0, platform_id=platform), complete())
    row = store.rows()[0]
    assert (row["hostname"], row["fs_type"], row["mpi_version"], row["iotune_version"]) == (
        "node01",
        "lustre",
        "4.2.0",
        "0.1.0",
    )


def test_platform_info_must_be_json(store):
    with pytest.raises(StoreError, match="JSON"):
        store.register_platform({"hostname": object()})
    with pytest.raises(StoreError, match="dict"):
        store.register_platform(["node01"])


def test_create_get_list_delete(store):
    created = store.create_study("b", "p: 1\n", "h1", {"runner": "sim", "seed": 3}, "second")
    study(store, "a")
    got = store.get_study("b")
    assert got == created
    assert (got.name, got.space_yaml, got.space_hash, got.settings, got.description, got.origin) == (
        "b",
        "p: 1\n",
        "h1",
        {"runner": "sim", "seed": 3},
        "second",
        None,
    )
    assert got.created_at.endswith("+00:00")
    assert [s.name for s in store.list_studies()] == ["a", "b"]
    assert store.get_study("zzz") is None
    store.delete_study("b")
    assert [s.name for s in store.list_studies()] == ["a"]


def test_duplicate_study_name(store):
    study(store, "same")
    with pytest.raises(StoreError, match="already exists"):
        study(store, "same")


def test_delete_study_removes_trials_and_measurements(store):
    keep, gone = study(store, "keep"), study(store, "gone")
    store.finish_trial(start(store, keep.id, 0), complete())
    store.finish_trial(start(store, gone.id, 0), complete())
    store.delete_study("gone")
    assert [t.study for t in store.trials()] == ["keep"]
    assert len(store.rows()) == 2
    with pytest.raises(StoreError, match="no study"):
        store.delete_study("gone")


def test_bad_study_name(store):
    with pytest.raises(StoreError, match="non-empty"):
        store.create_study("", "", "h", {})


def test_rename_study_keeps_trials_and_models(store):
    record = study(store, "old")
    study(store, "taken")
    store.finish_trial(start(store, record.id, 0), complete())
    store.save_model(record.id, {"name": "m", "predictor": "cart", "target": "time", "categorical": "onehot",
                                 "params": {}, "data_hash": "d", "space_hash": "h", "n_samples": 1, "metrics": {},
                                 "created_at": "2026-01-01T00:00:00+00:00"}, b"{}", "json")
    renamed = store.rename_study("old", "new")
    assert (renamed.id, renamed.name) == (record.id, "new") and store.get_study("old") is None
    assert [t.study for t in store.trials(study="new")] == ["new"]
    assert [(m.name, m.study) for m in store.list_models("new")] == [("m", "new")]
    with pytest.raises(StoreError, match="already exists"):
        store.rename_study("new", "taken")
    with pytest.raises(StoreError, match="no study"):
        store.rename_study("old", "other")
    with pytest.raises(StoreError, match="non-empty"):
        store.rename_study("new", " ")
    assert store.get_study("new").name == "new"
