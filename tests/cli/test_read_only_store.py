"""Issue 32, item 3: reading commands open a store read-only: they work on read-only media and never create or
change a store."""

from __future__ import annotations

import hashlib
import subprocess

import pytest

from iotune.cli.app import main
from iotune.errors import StoreError
from iotune.store import Store

READING = [["studies"], ["results"], ["results", "--trials"], ["results", "--study", "synth", "--format", "json"],
           ["study", "history", "synth"], ["status", "--study", "synth"], ["export", "{out}/e.json"],
           ["export", "{out}/e.csv"], ["study", "best", "synth"], ["study", "models"],
           ["recommend", "-s", "synth", "-w", "transfer_size=4MiB"], ["variability", "map", "-s", "synth"]]


@pytest.fixture(autouse=True)
def plain(monkeypatch):
    monkeypatch.setenv("IOTUNE_PLAIN", "1")


def _build(path) -> None:
    from tests.learn import synthetic

    with Store(path) as store:
        synthetic.build_study(store, repeats=2)


def _snapshot(directory) -> dict:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir())}


def _read_all(db, out, capsys) -> None:
    for argv in READING:
        code = main([word.format(out=out) for word in argv] + ["--db", str(db)])
        err = capsys.readouterr().err
        assert code == 0, f"{argv}: {err}"


@pytest.mark.slow
def test_reading_commands_change_nothing_beside_the_store(tmp_path, capsys):
    store_dir, out = tmp_path / "store", tmp_path / "out"
    store_dir.mkdir(), out.mkdir()
    _build(store_dir / "s.db")
    before = _snapshot(store_dir)
    _read_all(store_dir / "s.db", out, capsys)
    assert _snapshot(store_dir) == before  # not a byte changed, no -wal or -shm file left
    assert (out / "e.json").stat().st_size > 0


def test_a_reading_command_creates_no_store(tmp_path, capsys):
    (tmp_path / "empty.db").write_bytes(b"")
    assert main(["results", "--db", str(tmp_path / "empty.db")]) == 2
    assert "holds no iotune store" in capsys.readouterr().err
    assert (tmp_path / "empty.db").read_bytes() == b""
    with pytest.raises(StoreError, match="no store at"):
        Store(tmp_path / "none.db", read_only=True)
    assert not (tmp_path / "none.db").exists()


def test_an_older_schema_is_not_upgraded_by_a_reader(tmp_path):
    import sqlite3
    from pathlib import Path

    path = tmp_path / "v1.db"
    with sqlite3.connect(path) as conn:
        conn.executescript((Path(__file__).parents[1] / "store" / "data" / "schema_v1.sql").read_text())
    before = path.read_bytes()
    with pytest.raises(StoreError, match="schema version 1, older .* command that writes"):
        Store(path, read_only=True)
    assert path.read_bytes() == before


@pytest.fixture
def read_only_mount(tmp_path):
    """tmp_path/store bind-mounted read-only at tmp_path/ro (root); unmounted after the test."""
    source, mount = tmp_path / "store", tmp_path / "ro"
    source.mkdir(), mount.mkdir()
    _build(source / "s.db")
    subprocess.run(["mount", "--bind", str(source), str(mount)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(mount)], check=True)
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


@pytest.mark.slow
@pytest.mark.requires_root
def test_reading_commands_work_on_a_read_only_mount(read_only_mount, tmp_path, capsys):
    with pytest.raises(OSError):  # really read-only, even for root
        (read_only_mount / "probe").write_text("x")
    out = tmp_path / "out"
    out.mkdir()
    _read_all(read_only_mount / "s.db", out, capsys)
    assert (out / "e.json").stat().st_size > 0
    assert main(["bench", "nothere.yaml", "--db", str(read_only_mount / "s.db")]) == 2  # a writer: one line
    capsys.readouterr()


def test_a_reader_sees_what_a_writer_still_open_committed(tmp_path):
    from tests.learn import synthetic

    with Store(tmp_path / "s.db") as writer:
        writer.create_study("first", "parameters: []\n", "h", {})
        with Store(tmp_path / "s.db", read_only=True) as reader:
            assert [s.name for s in reader.list_studies()] == ["first"]
            synthetic.build_study(writer, repeats=1)
            assert len(reader.trials("synth")) > 0
