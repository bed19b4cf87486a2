"""``iotune train``, ``evaluate`` and ``explain`` end to end on synthetic test data, as a user runs them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from iotune.store import Store
from tests.learn import synthetic


@pytest.fixture(scope="module")
def small_db(tmp_path_factory):
    """The synthetic study measured once per configuration (96 trials), plus an empty study."""
    path = tmp_path_factory.mktemp("cli") / "small.db"
    with Store(path) as store:
        synthetic.build_study(store, repeats=1)
        sp = synthetic.space()
        store.create_study("empty", sp.to_yaml(), sp.hash, {})
    return path


@pytest.fixture
def db_path(small_db, tmp_path):
    path = tmp_path / "store.db"
    shutil.copy(small_db, path)
    return path


def run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, IOTUNE_PLAIN="1")
    env.pop("IOTUNE_DB", None)
    return subprocess.run([sys.executable, "-m", "iotune", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_train_prints_metrics_and_saves(db_path):
    result = run("train", "--study", "synth", "--predictor", "cart", "--db", str(db_path))
    assert result.returncode == 0, result.stderr
    assert "96 samples" in result.stderr and "data hash" in result.stderr and "saved model 'cart-time'" in result.stderr
    assert "in-sample" in result.stdout and "cv (5 folds)" in result.stdout and "rmse" in result.stdout
    shown = run("train", "-s", "synth", "-t", "relative", "-n", "rel", "--db", str(db_path), "--format", "json")
    record = json.loads(shown.stdout)[0]
    assert (record["model"], record["target"], record["samples"]) == ("rel", "relative", 96)
    with Store(db_path) as store:
        assert [m.name for m in store.list_models("synth")] == ["cart-time", "rel"]


@pytest.mark.slow
def test_evaluate_table_and_json(db_path):
    table = run("evaluate", "--study", "synth", "--db", str(db_path), "--folds", "2")
    assert table.returncode == 0, table.stderr
    for word in ("cart", "rankboost", "forest", "linear", "random", "top3 mean", "acc. % (100-MAPE)", "mae (s)"):
        assert word in table.stdout
    assert "regret, how much slower" in table.stderr
    rows = json.loads(run("evaluate", "-s", "synth", "--db", str(db_path), "-f", "json", "-k", "2").stdout)
    assert [r["predictor"] for r in rows] == ["cart", "rankboost", "forest", "linear", "random"]
    assert rows[1]["mae"] is None and rows[0]["top3_mean"] < rows[4]["top3_mean"]
    assert list(rows[0])[:8] == ["predictor", "mae", "rmse", "r2", "mape", "accuracy", "kendall_tau", "top1_mean"]


@pytest.mark.slow
def test_explain(db_path):
    result = run("explain", "--study", "synth", "--db", str(db_path))
    assert result.returncode == 0, result.stderr
    assert "|--- log2(transfer_size)" in result.stdout and "forest importance" in result.stdout
    assert "parameters that matter most: transfer_size" in result.stdout
    data = json.loads(run("explain", "-s", "synth", "--db", str(db_path), "-f", "json").stdout)[0]
    assert data["most_important"][0] == "transfer_size" and "|---" in data["rules"]


@pytest.mark.parametrize("args, message", [
    (("train",), "--study is required"),
    (("train", "--study", "nope"), "no study named 'nope'"),
    (("train", "--study", "synth", "--predictor", "svm"), "unknown predictor 'svm'"),
    (("train", "--study", "synth", "--target", "speed"), "unknown target 'speed'"),
    (("evaluate", "--study", "empty"), "no COMPLETE trials"),
])
def test_bad_input_is_one_line(small_db, args, message):
    result = run(*args, "--db", str(small_db))
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.stderr
