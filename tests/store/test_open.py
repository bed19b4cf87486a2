"""Opening a store: URLs, SQLite settings, schema version checks, clear errors."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa

from iotune.errors import StoreError
from iotune.store import SCHEMA_VERSION, Store, schema
from iotune.store.engine import masked, normalize_url


def test_open_creates_schema_and_reopens(store):
    url = store.url
    store.close()
    with Store(url) as again:
        assert again.list_studies() == []
        with again._read() as conn:
            version = conn.execute(sa.select(schema.meta.c.value).where(schema.meta.c.key == "schema_version"))
            assert version.scalar() == str(SCHEMA_VERSION)


def test_closed_store_refuses_work(store):
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.list_studies()


def test_context_manager_closes(new_url):
    with Store(new_url()) as store:
        store.create_study("s", "", "h", {})
    with pytest.raises(StoreError, match="closed"):
        store.get_study("s")


def test_default_is_iotune_db_in_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with Store() as store:
        assert store.url == f"sqlite:///{tmp_path / 'iotune.db'}"
        assert store.backend == "sqlite"
    assert (tmp_path / "iotune.db").exists()


def test_plain_path_becomes_sqlite_url(tmp_path):
    with Store(tmp_path / "results.db") as store:
        assert store.url == f"sqlite:///{tmp_path / 'results.db'}"
    assert normalize_url("/a/b.db") == "sqlite:////a/b.db"
    assert normalize_url("postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"


def test_sqlite_uses_wal_busy_timeout_and_foreign_keys(tmp_path):
    with Store(tmp_path / "x.db") as store, store._read() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 1000


def test_password_is_hidden():
    url = "postgresql+psycopg://ann:s3cret@db.example/iotune"
    assert masked(url) == "postgresql+psycopg://ann:***@db.example/iotune"
    assert "s3cret" not in masked("nonsense://ann:s3cret@host/x")


@pytest.mark.requires_postgres
def test_repr_hides_postgres_password(new_postgres_database):
    url = new_postgres_database(password="s3cret")
    with Store(url) as store:
        assert store.backend == "postgresql"
        assert "s3cret" in store.url
        assert "s3cret" not in repr(store) and "***" in repr(store)


def test_unreachable_server_names_url_without_password():
    url = "postgresql+psycopg://ann:s3cret@127.0.0.1:1/iotune"
    with pytest.raises(StoreError) as info:
        Store(url)
    message = str(info.value)
    assert "s3cret" not in message and "127.0.0.1:1/iotune" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    "url, expected",
    [
        ("nosuchdb://x/y", "nosuchdb"),
        ("postgresql+nodriver://u:pw@h/db", "nodriver"),
        ("sqlite:////no/such/dir/x.db", "/no/such/dir/x.db"),
        ("", "empty"),
    ],
)
def test_bad_url_is_one_line_store_error(url, expected):
    with pytest.raises(StoreError) as info:
        Store(url)
    assert expected in str(info.value) and "\n" not in str(info.value)


def test_file_that_is_not_a_database(tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(StoreError, match="notes.db"):
        Store(path)


def _set_version(url: str, version: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(schema.meta.update().values(value=version))
    engine.dispose()


def test_newer_schema_is_refused(store):
    url = store.url
    store.close()
    _set_version(url, str(SCHEMA_VERSION + 1))
    with pytest.raises(StoreError, match="newer"):
        Store(url)


def test_older_schema_without_migration_is_refused(store):
    url = store.url
    store.close()
    _set_version(url, "0")
    with pytest.raises(StoreError, match="no migration"):
        Store(url)


def test_migration_hook_upgrades_older_schema(store, monkeypatch):
    url = store.url
    store.close()
    _set_version(url, str(SCHEMA_VERSION - 1))
    steps = []
    monkeypatch.setitem(schema.MIGRATIONS, SCHEMA_VERSION - 1, lambda conn: steps.append(conn.dialect.name))
    with Store(url) as upgraded:
        assert len(steps) == 1
        with upgraded._read() as conn:
            assert conn.execute(sa.select(schema.meta.c.value)).scalar() == str(SCHEMA_VERSION)
    with Store(url):
        assert len(steps) == 1


def test_foreign_database_is_refused(new_url):
    url = new_url()
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE studies (x integer)")
    engine.dispose()
    with pytest.raises(StoreError, match="not an iotune store"):
        Store(url)


def test_version_1_database_file_opens(tmp_path):
    """A store written by schema version 1 must stay readable by every later iotune (upgraded if need be)."""
    path = tmp_path / "v1.db"
    with sqlite3.connect(path) as conn:
        conn.executescript((Path(__file__).parent / "data" / "schema_v1.sql").read_text())
    with Store(path) as store:
        states = {(t.config_key, t.state) for t in store.trials("legacy")}
        assert states == {
            ("cfg0000", "COMPLETE"),
            ("cfg0001", "FAILED"),
            ("cfg0002", "INVALID"),
            ("cfg0003", "RUNNING"),
        }
        done = store.trials("legacy", state="COMPLETE")[0]
        assert [p.phase for p in done.phases] == ["write", "read"] and done.hints_in_effect["cb_nodes"] == "2"
        assert len(store.rows("legacy")) == 5
        running = store.running_trials("legacy")
        assert store.start_trial(done.study_id, {}, "cfg0003", "wl0", 0, None, None) == running[0]
