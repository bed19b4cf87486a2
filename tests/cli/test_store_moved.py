"""Issue 32, item 2: a run holds its store by identity; replaced, deleted or moved under it, it stops in one line
that says where its trials went (before, it wrote on into the unlinked file and printed "55 trials completed")."""

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GROUND_TRUTH = ROOT / "data" / "ground_truth"
BENCH = ["bench", GROUND_TRUTH / "testbed_ground_truth.yaml", "--budget", "10", "--sampler", "random", "--study", "b",
         "--runner", f"replay:{GROUND_TRUTH / 'testbed_ground_truth.csv'}", "--replay-scale", "0.5"]


def _completed(path: Path) -> int:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            return conn.execute("SELECT count(*) FROM trials WHERE state = 'COMPLETE'").fetchone()[0]
    except sqlite3.Error:
        return 0


def _bench_then(tmp_path: Path, change) -> tuple[str, int]:
    db = tmp_path / "s.db"
    process = subprocess.Popen([sys.executable, "-m", "iotune", *map(str, BENCH), "--db", str(db)], cwd=tmp_path,
                               env={**os.environ, "IOTUNE_PLAIN": "1"}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while _completed(db) < 2:
            assert process.poll() is None and time.monotonic() < deadline, "the bench ended before 2 trials"
            time.sleep(0.1)
        change(db)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return err, process.returncode


def _error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error:") or "Traceback" in line]


def test_a_store_replaced_mid_bench_stops_it(tmp_path):
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    content = other.read_bytes()

    def replace(db):  # as `rm s.db*; mv other.db s.db` would: a stale -wal would be replayed into any new file
        for name in ("s.db", "s.db-wal", "s.db-shm"):
            (tmp_path / name).unlink(missing_ok=True)
        os.replace(other, db)

    err, code = _bench_then(tmp_path, replace)
    assert code != 0 and "trials completed" not in err, err[-2000:]
    lines = _error_lines(err)
    assert len(lines) == 1 and "no longer the file this run opened" in lines[0] and "replaced" in lines[0], err
    assert (tmp_path / "s.db").read_bytes() == content  # the file put there is left as it was
    saved = tmp_path / lines[0].split("saved in ")[1].split(")")[0]
    assert _completed(saved) >= 2


def test_a_store_deleted_mid_bench_stops_it(tmp_path):
    err, code = _bench_then(tmp_path, lambda db: db.unlink())
    assert code != 0 and "trials completed" not in err, err[-2000:]
    lines = _error_lines(err)
    assert len(lines) == 1 and "no longer the file this run opened" in lines[0] and "deleted" in lines[0], err
    assert not (tmp_path / "s.db").exists()
    saved = [p for p in tmp_path.iterdir() if p.name.startswith("s.db.saved-")]
    assert len(saved) == 1 and f"saved in {saved[0]}" in lines[0] and _completed(saved[0]) >= 2


def test_a_store_moved_mid_bench_says_where_it_is(tmp_path):
    err, code = _bench_then(tmp_path, lambda db: db.rename(tmp_path / "moved.db"))
    assert code != 0, err[-2000:]
    lines = _error_lines(err)
    assert len(lines) == 1 and f"moved to {tmp_path / 'moved.db'}" in lines[0], err
    assert _completed(tmp_path / "moved.db") >= 2


pytestmark = pytest.mark.slow
