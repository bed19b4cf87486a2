"""``iotune model striping``: calibrate the placement model on a stored study, store it, rank layouts with it, and
``recommend --model`` with it (issue 33), through the real entry point and a real SQLite store."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from iotune.store import Store

GROUND_TRUTH = Path(__file__).resolve().parents[2] / "data" / "ground_truth"
ENV = {**os.environ, "IOTUNE_PLAIN": "1"}
STUDY = "striping-strided-independent"


def iotune(*args):
    return subprocess.run([sys.executable, "-m", "iotune", *args], env=ENV, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    db = tmp_path_factory.mktemp("striping") / "gt.db"
    done = iotune("import", str(GROUND_TRUTH / "striping_ground_truth.csv"), "--db", str(db))
    assert done.returncode == 0, done.stderr
    return str(db)


@pytest.mark.slow
def test_calibrate_store_and_rank_layouts_for_an_unmeasured_workload(store):
    done = iotune("model", "striping", "--calibrate", "--study", STUDY, "--db", store, "--format", "json")
    assert done.returncode == 0, done.stderr
    fit = {row["quantity"]: row["value"] for row in json.loads(done.stdout)}
    # the testbed's servers are throttled to 5 MB/s of writes each
    assert 4.0 < fit["bandwidth per server (MB/s)"] < 6.0
    assert fit["runs"] == 70 and fit["Spearman rho of mean times"] > 0.8
    with Store(store, create=False) as opened:
        (record,) = opened.list_models(STUDY)
        assert record.name == "striped-placement" and opened.model_blob(STUDY, None)[2] == "striped-placement-json"
    # 8 processes were never measured (levels 2 and 4)
    ranked = iotune("model", "striping", "--study", STUDY, "--workload", "processes=8", "--db", store, "--format",
                    "json")
    assert ranked.returncode == 0, ranked.stderr
    rows = json.loads(ranked.stdout)
    assert len(rows) == 7 and rows[0]["stripe_count"] == 3 and rows[-1]["stripe_count"] == 1
    assert all(r["q10_s"] <= r["mean_s"] <= r["q90_s"] for r in rows)
    assert [r["mean_s"] for r in rows] == sorted(r["mean_s"] for r in rows)
    recommended = iotune("recommend", "--study", STUDY, "--model", "striped-placement", "--workload", "processes=8",
                         "--db", store, "--format", "json")
    assert recommended.returncode == 0, recommended.stderr
    assert json.loads(recommended.stdout)[:3] == rows[:3]


@pytest.mark.slow
def test_runs_blind_to_the_layout_are_refused_as_degenerate_and_nothing_is_stored(tmp_path):
    lines = (GROUND_TRUTH / "striping_ground_truth.csv").read_text().splitlines()
    flat = [lines[0]] + [",".join(line.split(",")[:-1] + [f"{2.0 + 0.001 * (i % 7):.4f}"])
                         for i, line in enumerate(lines[1:]) if line.startswith("fpp-independent")]
    table = tmp_path / "striping_ground_truth.csv"
    table.write_text("\n".join(flat) + "\n")
    shutil.copytree(GROUND_TRUTH / "striping", tmp_path / "striping")
    db = str(tmp_path / "flat.db")
    assert iotune("import", str(table), "--db", db).returncode == 0
    done = iotune("model", "striping", "--calibrate", "--study", "striping-fpp-independent", "--db", db)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "degenerate fit" in done.stderr
    with Store(db, create=False) as opened:
        assert opened.list_models("striping-fpp-independent") == []


def test_a_tampered_stored_model_is_refused_in_one_line(store):
    with Store(store, create=False) as opened:
        record = {"name": "bad", "predictor": "striped-placement", "target": "write seconds", "categorical": "none",
                  "data_hash": "x", "space_hash": "x", "n_samples": 1}
        blob = json.dumps({"kind": "striped-placement", "version": 1, "bandwidth": -5.0}).encode()
        opened.save_model(STUDY, record, blob, "striped-placement-json")
    done = iotune("model", "striping", "--study", STUDY, "--name", "bad", "--workload", "processes=8", "--db", store)
    assert done.returncode == 2 and "bandwidth must be" in done.stderr and done.stderr.strip().count("\n") == 0


@pytest.mark.parametrize("args, message", [
    ((), "give --calibrate"),
    (("--workload", "processes=2", "--name", "absent"), "model striping --calibrate --study"),
    (("--calibrate", "--workload", "processes=2"), "give --calibrate"),
])
def test_bad_requests_are_one_line(store, args, message):
    done = iotune("model", "striping", "--study", STUDY, "--db", store, *args)
    assert done.returncode == 2 and message in done.stderr and done.stderr.strip().count("\n") == 0
