"""Issue 12, items 6 and 7: `results --trials` shows what varies, plainly; application runs show wall seconds."""

import csv
import io
import json

import pytest

from iotune.cli.app import main
from iotune.records import Measurement, PhaseResult
from iotune.store import Store
from tests.learn import synthetic


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    monkeypatch.delenv("IOTUNE_DB", raising=False)
    path = tmp_path / "s.db"
    with Store(path) as store:
        synthetic.build_study(store, repeats=2)
    return str(path)


def test_trials_csv_has_one_plain_row_per_trial_with_write_and_read_apart(db, capsys):
    assert main(["results", "--trials", "-s", "synth", "--db", db, "-f", "csv"]) == 0
    out = capsys.readouterr().out
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 96 * 2
    assert list(rows[0])[-6:] == ["repeat", "state", "write_s", "write_mib_s", "read_s", "read_mib_s"]
    assert {"transfer_size", "cb_nodes", "romio_cb_write", "striping_factor"} <= set(rows[0])
    assert "{" not in out and "None" not in out
    row = rows[0]
    assert float(row["write_s"]) / float(row["read_s"]) == pytest.approx(1.5)  # synthetic: 60 % write, 40 % read
    assert float(row["write_mib_s"]) == pytest.approx(64 / float(row["write_s"]), rel=1e-3)


def test_trials_formats_agree(db, capsys):
    assert main(["results", "--trials", "-s", "synth", "--db", db, "-f", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert len(records) == 192 and records[0]["state"] == "COMPLETE" and "config_json" not in records[0]


def test_application_runs_show_wall_seconds(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    path = str(tmp_path / "r.db")
    sp = synthetic.space()
    config = next(iter(sp.enumerate()))
    with Store(path) as store:
        runs = store.create_study("t-runs", sp.to_yaml(), sp.hash, {"source": "iotune run", "tuning_study": "t"})
        for wall in (2.0, 4.0):
            trial = store.start_trial(runs.id, config.to_dict(), config.key, config.workload_key,
                                      int(wall))
            store.finish_trial(trial, Measurement(status="COMPLETE", runner="command", command="./app",
                                                  wall_seconds=wall, phases=[PhaseResult("run", 0, wall, 0.0, wall,
                                                                                         0.0, 0)],
                                                  extra={"phase_seconds_source": "wall time"}))
    assert main(["results", "-s", "t-runs", "--db", path]) == 0
    out = capsys.readouterr().out
    assert "application runs" in out and "3.000 ± 1.414" in out and "no Darshan log" in out
    assert main(["results", "-s", "t-runs", "--db", path, "-f", "json"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record["wall_mean_s"] == 3.0 and record["io_mib_s"] is None and record["runs"] == 2


def test_results_says_what_default_means(db, capsys):
    assert main(["results", "-s", "synth", "--db", db]) == 0
    out, err = capsys.readouterr()
    assert "vs default" in out and "`default:` value, or at its first listed level" in err


def test_tuned_application_runs_show_no_made_up_bandwidth(tmp_path, capsys, monkeypatch):
    """A study of `iotune tune -- app` runs (wall time, no bytes known): its MiB/s is not measured, not 0
    (issue 22: `results` showed "MiB/s 0")."""
    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    monkeypatch.setenv("COLUMNS", "250")
    path = str(tmp_path / "r.db")
    sp = synthetic.space()
    with Store(path) as store:
        runs = store.create_study("t-runs", sp.to_yaml(), sp.hash, {"sampler": "tune"})
        for wall, config in zip((2.0, 4.0), list(sp.enumerate())[:2]):
            trial = store.start_trial(runs.id, config.to_dict(), config.key, config.workload_key, 0)
            store.finish_trial(trial, Measurement(status="COMPLETE", runner="command", command="./app",
                                                  wall_seconds=wall, phases=[PhaseResult("run", 0, wall, 0.0, wall,
                                                                                         0.0, 0)],
                                                  extra={"phase_seconds_source": "wall time"}))
    assert main(["results", "-s", "t-runs", "--db", path]) == 0
    header, row = [line for line in capsys.readouterr().out.splitlines() if "│" in line or "┃" in line][:2]
    cells = dict(zip([c.strip() for c in header.split("┃")], [c.strip() for c in row.split("│")]))
    assert cells["MiB/s"] == "-" and cells["wall time s (mean ± sd)"].startswith("2.000")
    assert main(["results", "-s", "t-runs", "--db", path, "-f", "json"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record["best"]["mean_bandwidth_mib_s"] is None and record["best"]["mean_time_s"] == 2.0
