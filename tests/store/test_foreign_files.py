"""Opening a file that is not an iotune store refuses it and leaves it exactly as it was (issue 13, item 6)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from iotune.errors import StoreError
from iotune.store import Store


def _snapshot(path: Path) -> tuple[bytes, int, list[str]]:
    """The file's bytes, its mtime (ns) and every file beside it (to catch -wal, -shm, -journal)."""
    return path.read_bytes(), path.stat().st_mtime_ns, sorted(p.name for p in path.parent.iterdir())


def _foreign(path: Path, journal_mode: str) -> Path:
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA journal_mode = {journal_mode}")
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.executemany("INSERT INTO notes (body) VALUES (?)", [(f"note {i}",) for i in range(200)])
    conn.commit()
    conn.close()
    return path


def _corrupt_iotune_store(path: Path) -> Path:
    with Store(path) as store:
        store.create_study("s", "", "h", {})
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xa5" * (4096 - 100)  # the schema page's body: sqlite_master is unreadable
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("make, expected", [
    (lambda p: _foreign(p, "delete"), "not an iotune store"),
    (lambda p: _foreign(p, "wal"), "not an iotune store"),
    (lambda p: (p.write_bytes(b"SQLite format 3\x00" + os.urandom(4000)), p)[1], "left unchanged"),
    (lambda p: (p.write_text("my notes\n" * 50), p)[1], "not an SQLite database"),
    (_corrupt_iotune_store, "left unchanged"),
], ids=["rollback-journal-db", "wal-db", "random-after-header", "text-file", "corrupt-store"])
def test_foreign_or_corrupt_file_is_refused_unchanged(tmp_path, make, expected):
    path = make(tmp_path / "theirs.db")
    before = _snapshot(path)
    with pytest.raises(StoreError, match=expected) as info:
        Store(path)
    assert "\n" not in str(info.value)
    assert _snapshot(path) == before


def test_a_fifo_is_refused_without_blocking(tmp_path):
    path = tmp_path / "pipe.db"
    os.mkfifo(path)
    with pytest.raises(StoreError, match="not a regular file"):
        Store(path)


def test_an_empty_file_becomes_a_store(tmp_path):
    path = tmp_path / "new.db"
    path.touch()
    with Store(path) as store:
        store.create_study("s", "", "h", {})
    with Store(path) as store:
        assert [s.name for s in store.list_studies()] == ["s"]


def test_a_store_open_elsewhere_in_wal_mode_still_opens(tmp_path):
    path = tmp_path / "live.db"
    with Store(path) as first:
        first.create_study("s", "", "h", {})
        with Store(path) as second:  # the -wal file exists: checked through a read-only connection
            assert [s.name for s in second.list_studies()] == ["s"]


def test_a_store_of_a_newer_schema_is_refused_unchanged(tmp_path):
    """Before: it was switched to write-ahead logging (file header and -wal/-shm files) before it was refused."""
    from iotune.store.schema import SCHEMA_VERSION

    path = tmp_path / "newer.db"
    Store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer than this iotune"):
        Store(path)
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["newer.db"]


@pytest.mark.parametrize("damage", ["text", "pages"])
def test_a_damaged_store_is_called_corrupt(tmp_path, capsys, monkeypatch, damage):
    """Issue 32, item 7: random bytes past the first page, or text that is not UTF-8 (which iotune never writes),
    gave "Could not decode to UTF-8 column ..." with nothing saying the store is damaged."""
    import random

    from tests.learn import synthetic

    from iotune.cli.app import main

    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    path = tmp_path / "s.db"
    with Store(path) as store:
        synthetic.build_study(store, repeats=1)
    if damage == "text":
        with sqlite3.connect(path) as conn:
            conn.execute("UPDATE studies SET description = CAST(X'FFFE41' AS TEXT)")
    else:
        data = bytearray(path.read_bytes())
        page = int.from_bytes(data[16:18], "big")
        data[page:] = random.Random(4).randbytes(len(data) - page)
        path.write_bytes(bytes(data))
    for command in (["studies"], ["results"], ["results", "--trials"], ["export", str(tmp_path / "e.json")]):
        assert main([*command, "--db", str(path)]) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and "corrupt" in lines[0], lines


def test_a_stored_json_column_is_bounded_before_it_is_parsed(tmp_path, capsys, monkeypatch):
    """Issue 32, item 5: every stored part bounded before it is parsed; 9 MiB of ``[{},{},...]`` (parsed, twenty
    times that) in a trial's ``extra`` column of a store received from someone else."""
    from tests.learn import synthetic

    from iotune.cli.app import main

    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    path = tmp_path / "s.db"
    with Store(path) as store:
        synthetic.build_study(store, repeats=1)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE trials SET extra_json = ? WHERE id = 1", ("[{}" + ",{}" * (3 << 20) + "]",))
    assert main(["results", "--trials", "--db", str(path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "extra" in lines[0] and "more than" in lines[0], lines
