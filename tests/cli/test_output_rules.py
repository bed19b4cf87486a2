"""Issue 12, item 9: usage errors are one line, flags show no type, JSON has machine keys, null and booleans."""

import json

import pytest

from iotune.cli.app import main
from iotune.cli.terminal import Terminal, csv_cell, machine_key


@pytest.fixture(autouse=True)
def plain(monkeypatch):
    monkeypatch.setenv("IOTUNE_PLAIN", "1")


@pytest.mark.parametrize("argv, fragment", [
    (["bench", "--bogus"], "No such option: --bogus"),
    (["nosuch"], "No such command 'nosuch'"),
    (["results", "--study"], "--study"),
])
def test_usage_errors_are_one_line_with_exit_2(capsys, argv, fragment):
    assert main(argv) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], err
    assert "╭" not in err


def test_flags_show_no_value_type(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "--version" in out and "<bool>" not in out


def test_json_has_machine_keys_null_for_nan_and_real_booleans(capsys):
    Terminal().emit(["T exact (s)", "ARE %", "bandwidth MiB/s", "meets deadline"],
                    [[1.5, float("nan"), float("inf"), True]], "json")
    assert json.loads(capsys.readouterr().out) == [
        {"t_exact_s": 1.5, "are_pct": None, "bandwidth_mib_s": None, "meets_deadline": True}]


def test_records_lose_their_nan_too(capsys):
    Terminal().emit([], [], "json", records=[{"a": {"b": [float("nan"), 2.0]}}])
    assert json.loads(capsys.readouterr().out) == [{"a": {"b": [None, 2.0]}}]


def test_csv_cells_are_plain_values():
    assert csv_cell({"b": 1, "a": "x"}) == '{"a": "x", "b": 1}'
    assert csv_cell(float("nan")) == "" and csv_cell(None) == "" and csv_cell(False) == "false"
    assert machine_key("cost (AGBs)") == "cost_agbs" and machine_key("acc. % (100-MAPE)") == "acc_pct_100_mape"


def test_space_show_says_what_default_means(capsys):
    from pathlib import Path

    import iotune

    demo = Path(iotune.__file__).parent / "data" / "demo.yaml"
    assert main(["space", "show", str(demo)]) == 0
    assert "its first listed level when it has none" in capsys.readouterr().err
