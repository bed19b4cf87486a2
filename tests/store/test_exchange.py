"""Export to JSON, CSV and Parquet; import and merge with provenance, all or nothing."""

from __future__ import annotations

import json
import socket

import pytest

from iotune.records import Measurement
from iotune.errors import StoreError

from store_helpers import PLATFORM, complete, config, start, study


def _fill(store, name: str = "study", space_hash: str = "hash-a", configs: range = range(3)) -> int:
    record = study(store, name, space_hash)
    platform = store.register_platform(PLATFORM)
    for i in configs:
        store.finish_trial(start(store, record.id, i, platform_id=platform), complete(scale=i + 1))
    store.finish_trial(start(store, record.id, 9, platform_id=platform), Measurement.failed("no space left"))
    store.mark_invalid(record.id, config(8), "cfg0008", "wl0", "stripe count > OSTs")
    start(store, record.id, 7, platform_id=platform)
    return record.id


def _snapshot(store):
    trials = [(t.uid, t.study, t.config_key, t.repeat, t.state, t.phases, t.imported_from) for t in store.trials()]
    return store.list_studies(), trials, store.rows()


def _comparable(trial):
    return (
        trial.uid,
        trial.config,
        trial.config_key,
        trial.workload_key,
        trial.repeat,
        trial.state,
        trial.error,
        trial.started_at,
        trial.finished_at,
        trial.runner,
        trial.command,
        trial.hints_requested,
        trial.hints_in_effect,
        trial.read_cache_mode,
        trial.wall_seconds,
        trial.extra,
        trial.benchmark,
        trial.phases,
    )


def test_json_export_document(store, tmp_path):
    _fill(store)
    path = tmp_path / "out.json"
    store.export(path)
    document = json.loads(path.read_text())
    assert (document["format"], document["version"]) == ("iotune-export", 1)
    assert document["source"]["host"] == socket.gethostname() and document["source"]["db"]
    assert document["exported_at"]
    assert document["platforms"][0]["info"] == PLATFORM
    (exported,) = document["studies"]
    assert exported["name"] == "study" and exported["settings"] == {"runner": "builtin", "repeats": 3}
    assert len(exported["trials"]) == 6
    trial = next(t for t in exported["trials"] if t["config_key"] == "cfg0000")
    assert trial["platform"] == document["platforms"][0]["fingerprint"]
    assert [m["phase"] for m in trial["measurements"]] == ["write", "read"]
    assert trial["measurements"][0]["bandwidth_mib"] == pytest.approx(8.0)


def test_json_round_trip_keeps_everything(open_store, tmp_path):
    source, target = open_store(), open_store()
    _fill(source)
    path = tmp_path / "out.json"
    source.export(path)
    report = target.import_file(path)
    assert (report.studies_added, report.studies_merged, report.trials_added) == (1, 0, 5)
    assert (report.trials_duplicate, report.trials_conflicting, report.trials_skipped_running) == (0, 0, 1)
    expected = [_comparable(t) for t in source.trials() if t.state != "RUNNING"]
    assert [_comparable(t) for t in target.trials()] == expected
    imported = target.get_study("study")
    assert imported.space_yaml == source.get_study("study").space_yaml
    assert imported.origin.startswith(str(path))
    host = socket.gethostname()
    for trial in target.trials():
        assert trial.imported_from.startswith(f"{path} (host {host}, db ")
    assert target.register_platform(PLATFORM) == target.trials()[0].platform_id
    again = target.import_file(path)
    assert (again.studies_merged, again.trials_added, again.trials_duplicate) == (1, 0, 5)


def test_export_one_study(store, tmp_path):
    _fill(store, "a")
    _fill(store, "b", configs=range(1))
    store.export(tmp_path / "b.json", study="b")
    document = json.loads((tmp_path / "b.json").read_text())
    assert [s["name"] for s in document["studies"]] == ["b"]
    store.export(tmp_path / "b.csv", "csv", study="b")
    assert {line.split(",")[0] for line in (tmp_path / "b.csv").read_text().splitlines()[1:]} == {"b"}


def test_merge_renumbers_conflicting_repeats(open_store, tmp_path):
    here, there = open_store(), open_store()
    _fill(here, configs=range(2))
    _fill(there, configs=range(3))
    there.export(tmp_path / "there.json")
    report = here.import_file(tmp_path / "there.json")
    assert (report.studies_added, report.studies_merged) == (0, 1)
    # cfg0000, cfg0001, the failed cfg0009 and invalid cfg0008 collide on repeat 0; cfg0002 is new.
    assert (report.trials_added, report.trials_conflicting, report.trials_duplicate) == (5, 4, 0)
    repeats = sorted((t.config_key, t.repeat) for t in here.trials("study") if t.state == "COMPLETE")
    assert repeats == [("cfg0000", 0), ("cfg0000", 1), ("cfg0001", 0), ("cfg0001", 1), ("cfg0002", 0)]
    moved = next(t for t in here.trials() if (t.config_key, t.repeat) == ("cfg0000", 1))
    assert moved.imported_from and moved.phases


def test_different_space_is_imported_under_host_name(open_store, tmp_path):
    here, there = open_store(), open_store()
    _fill(here, space_hash="hash-a")
    _fill(there, space_hash="hash-b")
    there.export(tmp_path / "there.json")
    report = here.import_file(tmp_path / "there.json")
    renamed = f"study@{socket.gethostname()}"
    assert report.renamed == {"study": renamed} and renamed in report.summary()
    assert (report.studies_added, report.trials_added, report.trials_conflicting) == (1, 5, 0)
    assert here.get_study(renamed).space_hash == "hash-b"
    assert len(here.trials("study")) == 6
    again = here.import_file(tmp_path / "there.json")
    assert (again.studies_merged, again.trials_duplicate, again.renamed) == (1, 5, {"study": renamed})


def _corrupt_files(tmp_path, good: dict) -> list:
    truncated = json.dumps(good)
    bad_trial = json.loads(json.dumps(good))
    bad_trial["studies"][0]["trials"][-1]["state"] = "EXPLODED"
    second_bad = json.loads(json.dumps(good))
    second_bad["studies"].append({"name": "late", "space_hash": "x", "trials": [{"uid": "u1"}]})
    missing_phase_bytes = json.loads(json.dumps(good))
    missing_phase_bytes["studies"][0]["trials"][0]["measurements"][0]["bytes"] = "lots"
    newer = dict(good, version=2)
    files = {
        "truncated.json": truncated[: len(truncated) // 2],
        "empty.json": "",
        "other.json": json.dumps({"hello": "world"}),
        "list.json": "[1, 2, 3]",
        "newer.json": json.dumps(newer),
        "bad_state.json": json.dumps(bad_trial),
        "second_bad.json": json.dumps(second_bad),
        "bad_bytes.json": json.dumps(missing_phase_bytes),
        "notes.csv": "name,age\nann,3\n",
        "binary.bin": "\x00\x01garbage",
    }
    paths = []
    for name, text in files.items():
        path = tmp_path / name
        path.write_text(text)
        paths.append(path)
    paths.append(tmp_path / "missing.json")
    return paths


def test_bad_import_leaves_database_unchanged(open_store, tmp_path):
    here, there = open_store(), open_store()
    _fill(here, configs=range(2))
    _fill(there, "other", configs=range(3))
    there.export(tmp_path / "good.json")
    good = json.loads((tmp_path / "good.json").read_text())
    before = _snapshot(here)
    for path in _corrupt_files(tmp_path, good):
        with pytest.raises(StoreError) as info:
            here.import_file(path)
        assert "\n" not in str(info.value) and path.name in str(info.value)
        assert _snapshot(here) == before, path.name
    assert here.import_file(tmp_path / "good.json").trials_added == 5


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_flat_export_round_trip(open_store, tmp_path, fmt):
    source, target = open_store(), open_store()
    _fill(source)
    path = tmp_path / f"rows.{fmt}"
    source.export(path, fmt)
    report = target.import_file(path)
    assert (report.studies_added, report.trials_added, report.trials_skipped_running) == (1, 5, 1)
    keep = ("uid", "config", "config_key", "workload_key", "repeat", "state", "error", "started_at", "phases")
    expected = [{k: getattr(t, k) for k in keep} for t in source.trials() if t.state != "RUNNING"]
    assert [{k: getattr(t, k) for k in keep} for t in target.trials()] == expected
    assert [t.hints_in_effect for t in target.trials() if t.state == "COMPLETE"][0] == complete().hints_in_effect
    assert target.get_study("study").space_hash == "hash-a"
    assert target.trials()[0].imported_from.startswith(str(path))
    rows_there = [{k: v for k, v in r.items() if k not in ("state",)} for r in target.rows()]
    rows_here = [{k: v for k, v in r.items() if k not in ("state",)} for r in source.rows() if r["state"] != "RUNNING"]
    assert rows_there == rows_here
    assert target.import_file(path).trials_duplicate == 5


@pytest.mark.parametrize("fmt", ["csv", "parquet", "json"])
def test_export_empty_store(open_store, tmp_path, fmt):
    source, target = open_store(), open_store()
    source.export(tmp_path / f"empty.{fmt}", fmt)
    report = target.import_file(tmp_path / f"empty.{fmt}")
    assert report.trials_added == 0 and target.list_studies() == []


def test_export_errors(store, tmp_path):
    with pytest.raises(StoreError, match="format"):
        store.export(tmp_path / "x.xml", "xml")
    with pytest.raises(StoreError, match="no study"):
        store.export(tmp_path / "x.json", study="nope")
    with pytest.raises(StoreError, match="cannot write"):
        store.export(tmp_path / "no" / "dir" / "x.json")
