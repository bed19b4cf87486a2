"""Issue 12, item 2: a model worse than predicting the mean is said to be so by train, explain and recommend."""

import json

import pytest

from iotune.cli.app import main
from iotune.cli.model_quality import metric_label
from iotune.cli.recommend_cmd import run_recommend
from iotune.learn.model import load_model
from iotune.store import Store
from iotune.stored import StoredStudy
from tests.learn import synthetic


@pytest.fixture
def noise_db(tmp_path, monkeypatch):
    """The synthetic study drowned in noise (log-sd 3): no predictor beats the mean on it."""
    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    monkeypatch.delenv("IOTUNE_DB", raising=False)
    path = tmp_path / "noise.db"
    with Store(path) as store:
        synthetic.build_study(store, name="noise", repeats=1, noise=3.0, seed=1)
    return str(path)


def test_train_explain_and_recommend_warn_about_a_negative_r2(noise_db, capsys):
    assert main(["train", "-s", "noise", "-p", "cart", "--db", noise_db, "-f", "json"]) == 0
    out, err = capsys.readouterr()
    record = json.loads(out)[0]
    r2 = record["metrics"]["cv"]["r2"]
    assert r2 < 0 and record["worse_than_mean"] is True and record["metric_units"]["mae"] == "s"
    assert "worse than always predicting the mean" in err
    assert main(["explain", "-s", "noise", "-m", "cart-time", "--db", noise_db]) == 0
    assert "worse than always predicting the mean" in capsys.readouterr().err
    with Store(noise_db) as store:
        model = load_model(StoredStudy.open(store, "noise"), "cart-time")
    run_recommend(model, {"transfer_size": 65536, "pattern": "contiguous"}, top=2, spread=False)
    assert "not to be trusted" in capsys.readouterr().err


def test_metrics_carry_units():
    assert metric_label("mae", "time") == "mae (s)" and metric_label("rmse", "bandwidth") == "rmse (MiB/s)"
    assert metric_label("mape", "time") == "mape (%)"


def test_recommend_says_default_not_baseline_and_explains_it(noise_db, capsys):
    assert main(["train", "-s", "noise", "-p", "cart", "--db", noise_db]) == 0
    capsys.readouterr()
    with Store(noise_db) as store:
        model = load_model(StoredStudy.open(store, "noise"), "cart-time")
    workload = {"transfer_size": 65536, "pattern": "contiguous"}
    run_recommend(model, workload, top=2, spread=False, fmt="json")
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert "default_predicted" in data and "improvement_vs_default" in data["candidates"][0]
    run_recommend(model, workload, top=2, spread=False)
    out, err = capsys.readouterr()
    assert "vs default" in out and "baseline" not in out + err
    assert "first listed level" in err and "co-champions:" in err
