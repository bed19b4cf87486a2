"""Issue 32 (latency): the reading commands read a SQLite store through ``sqlite3`` (:mod:`iotune.store.reader`),
without SQLAlchemy; every read answers exactly as a read-only ``Store`` does, refusals included."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tests.store.store_helpers import PLATFORM, complete, start, study

from iotune.errors import StoreError
from iotune.store import StorageReader, Store, open_reader
from iotune.store.reader import SqliteReader, sqlite_file
from iotune.store.records import ROUNDS_SETTING

MODEL = {"name": "cart-time", "predictor": "cart", "target": "time", "categorical": "onehot",
         "params": {"max_depth": 3}, "dataset_options": {"log": True}, "data_hash": "d" * 40, "space_hash": "hash-a",
         "n_samples": 4, "metrics": {"cv": {"r2": 0.5}}}


@pytest.fixture
def filled(tmp_path) -> Path:
    """A store holding what a reader must decode: two studies, platforms, finished, failed, invalid, queued and
    running trials, raced trials, trials without a platform, and models."""
    from iotune.records import Measurement

    path = tmp_path / "filled.db"
    with Store(path) as store:
        first, second = study(store, "first"), study(store, "second", "hash-b")
        platform = store.register_platform(PLATFORM)
        other = store.register_platform({**PLATFORM, "hostname": "node02"})
        for i in range(4):
            for repeat in range(2):
                trial = start(store, first.id, i, repeat, platform if i % 2 else other)
                store.finish_trial(trial, complete(1.0 + i / 10 + repeat / 100))
        store.finish_trial(start(store, first.id, 4), Measurement(status="FAILED", error="it broke"))
        store.mark_invalid(first.id, {"cb_nodes": 3}, "cfg-invalid", "wl0", "cb_nodes above the ranks")
        store.enqueue("first", [{"config": {"cb_nodes": 8}, "config_key": "cfg-queued", "workload_key": "wl0",
                                 "repeat": 0}])
        store.start_trial(second.id, {"cb_nodes": 1}, "cfg-running", "wl0", 0, owner="host:1:2")  # a worker's
        store.finish_trial(start(store, second.id, 8), complete(2.0))  # no platform
        store.update_settings("first", {ROUNDS_SETTING: {"cfg0000#0": 1, "cfg0001#1": 2}})
        store.save_model(first.id, MODEL, b"\x00model", "npz-json")
        store.save_model(first.id, {**MODEL, "name": "forest-time", "predictor": "forest"}, b"forest", "npz-json")
    return path


READS = [("list_studies", ()), ("get_study", ("first",)), ("get_study", ("none",)), ("platforms", ([1, 2, 99],)),
         ("platforms", ([],)), ("trials", ()), ("trials", ("first",)), ("trials", (2,)),
         ("trials", ("first", "COMPLETE")),
         ("trials", ("first", None, ["cfg0001", "cfg0003", "nothing"])),
         ("trials", ("first", None, [f"cfg{i:04d}" for i in range(600)])), ("trial_states", ("first",)),
         ("trial_sources", (1,)), ("running_trials", ("second",)), ("get_trial", (3,)), ("rows", ()),
         ("rows", ("second",)), ("running_owners", ("second",)), ("queue_counts", ("first",)),
         ("model_blob", ("first",)), ("model_blob", ("first", "cart-time")), ("list_models", ()),
         ("list_models", ("first",)), ("list_models", ("second",))]


@pytest.mark.parametrize(("operation", "args"), READS, ids=[f"{op}{args}"[:60] for op, args in READS])
def test_every_read_answers_as_the_store_does(filled, operation, args):
    with Store(filled, read_only=True) as store, open_reader(filled) as reader:
        assert isinstance(reader, SqliteReader)
        expected = getattr(store, operation)(*args)
        assert getattr(reader, operation)(*args) == expected
    assert expected not in (None, [], {}) or args in (("none",), ([],)) or operation == "list_models"


def test_the_fixture_holds_what_the_reads_must_decode(filled):
    with open_reader(filled) as reader:
        trials = reader.trials()
        assert {t.state for t in trials} == {"COMPLETE", "FAILED", "INVALID", "PENDING", "RUNNING"}
        assert {t.race_round for t in trials} == {None, 1, 2}
        assert all(len(t.phases) == 2 for t in trials if t.state == "COMPLETE")
        assert reader.model_blob("first", "cart-time")[1:] == (b"\x00model", "npz-json")
        assert reader.source()["db"] == str(filled) and reader.backend == "sqlite"


REFUSED = [("trials", ("nothing",)), ("trials", (None, "DONE")), ("get_trial", (999,)), ("model_blob", ("second",)),
           ("model_blob", ("first", "nope")), ("queue_counts", (True,)), ("rows", ("nothing",))]


@pytest.mark.parametrize(("operation", "args"), REFUSED)
def test_a_refused_read_says_what_the_store_says(filled, operation, args):
    with Store(filled, read_only=True) as store, open_reader(filled) as reader:
        with pytest.raises(StoreError) as by_store:
            getattr(store, operation)(*args)
        with pytest.raises(StoreError) as by_reader:
            getattr(reader, operation)(*args)
    assert str(by_reader.value) == str(by_store.value)


def _sql(path: Path, script: str) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.executescript(script)
    finally:
        conn.close()  # its -wal and -shm files go with it


def _older(path: Path) -> None:
    _sql(path, (Path(__file__).parent / "data" / "schema_v1.sql").read_text())


def _newer(path: Path) -> None:
    with Store(path):
        pass
    _sql(path, "UPDATE meta SET value = '99' WHERE key = 'schema_version'")


def _foreign(path: Path) -> None:
    _sql(path, "CREATE TABLE people (name TEXT)")


def _corrupt(path: Path) -> None:
    with Store(path):
        pass
    data = bytearray(path.read_bytes())
    data[100:] = b"\xff" * (len(data) - 100)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("make", [lambda p: None, lambda p: p.write_bytes(b""), lambda p: p.write_text("text"),
                                  _older, _newer, _foreign, _corrupt],
                         ids=["missing", "empty", "not-sqlite", "older", "newer", "foreign", "corrupt"])
def test_a_store_the_reader_cannot_read_is_refused_as_the_store_refuses_it(tmp_path, make):
    path = tmp_path / "s.db"
    make(path)
    before = path.read_bytes() if path.exists() else None
    with pytest.raises(StoreError) as by_store:
        Store(path, read_only=True).close()
    with pytest.raises(StoreError) as by_reader:
        open_reader(path).close()
    assert str(by_reader.value) == str(by_store.value)
    assert (path.read_bytes() if path.exists() else None) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ([] if before is None else ["s.db"])


def test_only_a_plain_sqlite_file_url_is_read_without_sqlalchemy(filled):
    assert sqlite_file(f"sqlite:///{filled}") == str(filled)
    for other in ("sqlite://", "sqlite:///:memory:", f"sqlite:///{filled}?mode=ro", "sqlite:///a%20b.db",
                  "postgresql+psycopg://user:pw@host/db", "sqlite:///file:x.db?mode=ro&uri=true"):
        assert sqlite_file(other) is None, other
    with open_reader(f"sqlite:///{filled}?timeout=5") as store:  # a query: SQLAlchemy's Store reads it
        assert isinstance(store, Store) and isinstance(store, StorageReader)
        assert [s.name for s in store.list_studies()] == ["first", "second"]


def test_a_closed_reader_refuses_to_read(filled):
    reader = open_reader(filled)
    reader.close()
    with pytest.raises(StoreError, match="is closed"):
        reader.list_studies()


def test_the_reader_sees_what_a_writer_still_open_commits(tmp_path):
    with Store(tmp_path / "s.db") as writer:
        created = study(writer, "first")
        with open_reader(tmp_path / "s.db") as reader:
            assert reader.trials("first") == []
            writer.finish_trial(start(writer, created.id, 0), complete())
            assert [t.state for t in reader.trials("first")] == ["COMPLETE"]
