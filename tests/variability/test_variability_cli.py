"""``iotune variability map|evaluate|plan`` in-process on the synthetic store (temp SQLite, no MPI)."""

import json

import pytest

from iotune.cli.app import main


@pytest.fixture(autouse=True)
def _plain(monkeypatch):
    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    monkeypatch.delenv("IOTUNE_DB", raising=False)


def run(capsys, *args):
    code = main(["variability", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_map_lists_spread_and_in_sample_error(capsys, var_db):
    code, out, err = run(capsys, "map", "--study", "var", "--db", str(var_db), "--predictor", "mars")
    assert code == 0, err
    assert "bimodal" in out and "in-sample average relative error" in err
    code, out, _ = run(capsys, "map", "-s", "var", "--db", str(var_db), "--format", "json")
    records = json.loads(out)
    assert len(records) == 96 and {"std", "cv", "q95", "bimodal", "map_std"} <= set(records[0])


def test_evaluate_prints_table_2(capsys, var_db):
    code, out, err = run(capsys, "evaluate", "-s", "var", "--db", str(var_db), "--repeats", "1", "--format", "csv")
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[0].startswith("train_proportion") and len(lines) == 10


def test_plan_lists_runs_needed(capsys, var_db):
    code, out, err = run(capsys, "plan", "-s", "var", "--db", str(var_db), "--rel-width", "0.02", "--format", "json")
    assert code == 0, err
    records = json.loads(out)
    assert len(records) == 96 and all(r["runs_needed"] >= 1 for r in records)
    assert "more runs in all" in err


@pytest.mark.parametrize("args, message", [
    (("map", "-s", "nope"), "no study named 'nope'"),
    (("map",), "--study is required"),
    (("plan", "-s", "once"), ">= 2 repeats"),
    (("map", "-s", "var", "--predictor", "kriging"), "predictor must be one of"),
    (("plan", "-s", "var", "--confidence", "2"), "confidence must be in (0, 1)"),
    (("evaluate", "-s", "var", "--repeats", "0"), "repeats must be >= 1"),
    (("map", "-s", "var", "--format", "xml"), "xml"),
])
def test_one_line_errors(capsys, var_db, args, message):
    code, out, err = run(capsys, *args, "--db", str(var_db))
    assert code == 2
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
