"""Issue 12, item 11: `iotune study list|history|best|delete|rename|models`, as optuna's CLI users expect."""

import json

import pytest

from iotune.cli.app import main
from iotune.store import Store
from tests.learn import synthetic


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    monkeypatch.delenv("IOTUNE_DB", raising=False)
    path = tmp_path / "s.db"
    with Store(path) as store:
        synthetic.build_study(store, repeats=1)
        synthetic.build_study(store, name="other", repeats=1, seed=2)
    return str(path)


def test_history_is_in_start_order_with_best_so_far(db, capsys):
    assert main(["study", "history", "synth", "--db", db, "-f", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["number"] for r in rows] == list(range(96))
    assert [r["started"] for r in rows] == sorted(r["started"] for r in rows)
    best = [r["best_so_far_s"] for r in rows]
    assert all(a >= b for a, b in zip(best, best[1:]))
    assert best[-1] == pytest.approx(min(r["write_s"] + r["read_s"] for r in rows), abs=1e-5)


def test_best_is_the_fastest_configuration_per_workload(db, capsys):
    assert main(["study", "best", "synth", "--db", db, "-f", "json"]) == 0
    best = json.loads(capsys.readouterr().out)
    assert len(best) == 4 and all(b["speedup_vs_default"] >= 1 for b in best)


def test_rename_then_delete_with_yes(db, capsys):
    assert main(["study", "rename", "synth", "renamed", "--db", db]) == 0
    assert main(["study", "rename", "renamed", "other", "--db", db]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["study", "delete", "renamed", "--db", db]) == 2  # no terminal to ask on: needs --yes
    assert "add --yes" in capsys.readouterr().err
    assert main(["study", "delete", "renamed", "--yes", "--db", db]) == 0
    assert "96 trials" in capsys.readouterr().err
    with Store(db) as store:
        assert [s.name for s in store.list_studies()] == ["other"]
    assert main(["study", "delete", "renamed", "--yes", "--db", db]) == 2
    assert "no study named 'renamed'" in capsys.readouterr().err


def test_models_lists_trained_models_with_their_quality(db, capsys):
    assert main(["train", "-s", "synth", "-p", "cart", "--db", db]) == 0
    assert main(["study", "rename", "synth", "s2", "--db", db]) == 0
    capsys.readouterr()
    assert main(["study", "models", "--db", db, "-f", "json"]) == 0
    (model,) = json.loads(capsys.readouterr().out)
    assert (model["study"], model["model"], model["target"]) == ("s2", "cart-time", "time")
    assert model["cv_r2"] > 0 and model["worse_than_mean"] is False and model["cv_mae"].endswith(" s")
