"""Issue 22, item 5: an export of every format imports back into an empty store as a study that `results`,
`report` and `tune` use (the replay runner measures; nothing is stubbed)."""

import csv
import json
import sqlite3
from pathlib import Path

import pytest

from tests.cli.conftest import run_iotune

ROOT = Path(__file__).resolve().parents[2]
GROUND_TRUTH = ROOT / "data" / "ground_truth"
SPEC = GROUND_TRUTH / "testbed_ground_truth.yaml"
WORKLOAD = "api=MPIIO,collective=true,file_per_process=false,transfer_size=256KiB"


def _tune(tmp_path, db: Path, budget: int):
    return run_iotune("tune", SPEC, "--budget", budget, "--workload", WORKLOAD, "--study", "t", "--db", db,
                      "--runner", f"replay:{GROUND_TRUTH / 'testbed_ground_truth.csv'}", "--replay-scale", "0",
                      "--format", "json", cwd=tmp_path)


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("source")
    done = _tune(tmp_path, tmp_path / "a.db", 4)
    assert done.returncode == 0, done.stderr[-2000:]
    return tmp_path / "a.db"


@pytest.mark.parametrize("fmt", ["json", "csv", "parquet"])
def test_an_export_imports_back_as_a_usable_study(source, tmp_path, fmt):
    path, target = tmp_path / f"t.{fmt}", tmp_path / "b.db"
    assert run_iotune("export", path, "--format", fmt, "--db", source, cwd=tmp_path).returncode == 0
    done = run_iotune("import", path, "--db", target, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 studies added" in done.stdout + done.stderr and "4 trials added" in done.stdout + done.stderr
    results = run_iotune("results", "--study", "t", "--db", target, "--format", "json", cwd=tmp_path)
    assert results.returncode == 0, results.stderr
    assert json.loads(results.stdout)
    report = run_iotune("report", "--study", "t", "--db", target, "-o", tmp_path / "r.html", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "r.html").stat().st_size > 0
    tuned = _tune(tmp_path, target, 5)
    assert tuned.returncode == 0, tuned.stderr[-2000:]
    summary = json.loads(tuned.stdout)
    assert summary["runs"] == 5 and len(summary["history"]) == 1  # the 4 imported runs count


def test_a_flat_export_checks_values_against_the_space_it_carries(source, tmp_path):
    path = tmp_path / "t.csv"
    assert run_iotune("export", path, "--format", "csv", "--db", source, cwd=tmp_path).returncode == 0
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    rows[0]["cfg.fs"] = "<script>"
    with open(path, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    done = run_iotune("import", path, "--db", tmp_path / "b.db", cwd=tmp_path)
    assert done.returncode == 2 and "not a configuration of the study's space" in done.stderr
    assert done.stderr.count("\n") == 1


def test_a_file_whose_trials_are_all_there_adds_no_studies(source, tmp_path):
    json_path, csv_path, target = tmp_path / "t.json", tmp_path / "t.csv", tmp_path / "b.db"
    for path in (json_path, csv_path):
        assert run_iotune("export", path, "--db", source, cwd=tmp_path).returncode == 0
    assert run_iotune("import", json_path, "--db", target, cwd=tmp_path).returncode == 0
    with sqlite3.connect(target) as conn:
        conn.execute("UPDATE studies SET space_hash = 'other'")  # the same trials, now in a study of another space
    done = run_iotune("import", csv_path, "--db", target, cwd=tmp_path)
    assert done.returncode == 0 and "0 trials added" in done.stdout + done.stderr
    with sqlite3.connect(target) as conn:
        assert conn.execute("SELECT name FROM studies").fetchall() == [("t",)]
