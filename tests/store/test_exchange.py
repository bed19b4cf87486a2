"""Export to JSON, CSV and Parquet; import and merge with provenance, all or nothing."""

from __future__ import annotations

import csv
import json
import socket

import pytest
from store_helpers import PLATFORM, complete

from iotune.errors import StoreError
from iotune.output import OutputError
from iotune.records import BenchmarkSpec, Measurement
from iotune.space import Space
from iotune.store.exchange import export, import_file

SPACE_TEXT = """\
name: study
parameters:
  - {name: cb_nodes, type: integer, levels: [1, 2, 4], role: system, layer: mpiio}
  - {name: collective, type: boolean, role: workload, layer: mpiio}
  - {name: striping_unit, type: size, range: [1MiB, 10MiB], step: 1MiB, role: system,
     layer: mpiio}
  - {name: layout, type: categorical, levels: [blocked, strided], role: workload, layer: application,
     when: "cb_nodes > 8"}
"""
SPACES = {"a": Space.from_text(SPACE_TEXT), "b": Space.from_text(SPACE_TEXT.replace("[1, 2, 4]", "[1, 2, 4, 8]"))}


def config(i: int) -> dict:
    """A distinct configuration of both spaces for each i in 0 .. 9."""
    return {"cb_nodes": 2 ** (i % 3), "collective": i % 2 == 0, "striping_unit": (i + 1) << 20, "layout": None}


def key(i: int, space: str = "a") -> str:
    """The configuration key of the store helpers' ``config(i)``."""
    return SPACES[space].configuration(config(i)).key


def _start(store, study_id: int, i: int, space: str, platform_id: int) -> int:
    made = SPACES[space].configuration(config(i))
    return store.start_trial(study_id, made.to_dict(), made.key, made.workload_key, 0, platform_id,
                             BenchmarkSpec(processes=2).to_dict())


def _fill(store, name: str = "study", space: str = "a", configs: range = range(3)) -> int:
    record = store.create_study(name, SPACES[space].to_yaml(), SPACES[space].hash,
                                {"runner": "builtin", "repeats": 3}, "a test")
    platform = store.register_platform(PLATFORM)
    for i in configs:
        store.finish_trial(_start(store, record.id, i, space, platform), complete(scale=i + 1))
    store.finish_trial(_start(store, record.id, 9, space, platform), Measurement.failed("no space left"))
    made = SPACES[space].configuration(config(8))
    store.mark_invalid(record.id, made.to_dict(), made.key, made.workload_key, "stripe count > OSTs")
    _start(store, record.id, 7, space, platform)
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
    export(store, path)
    document = json.loads(path.read_text())
    assert (document["format"], document["version"]) == ("iotune-export", 1)
    assert document["source"]["host"] == socket.gethostname() and document["source"]["db"]
    assert document["exported_at"]
    assert document["platforms"][0]["info"] == PLATFORM
    (exported,) = document["studies"]
    assert exported["name"] == "study" and exported["settings"] == {"runner": "builtin", "repeats": 3}
    assert len(exported["trials"]) == 6
    trial = next(t for t in exported["trials"] if t["config_key"] == key(0))
    assert trial["platform"] == document["platforms"][0]["fingerprint"]
    assert [m["phase"] for m in trial["measurements"]] == ["write", "read"]
    assert trial["measurements"][0]["bandwidth_mib"] == pytest.approx(8.0)


def test_json_round_trip_keeps_everything(open_store, tmp_path):
    source, target = open_store(), open_store()
    _fill(source)
    path = tmp_path / "out.json"
    export(source, path)
    report = import_file(target, path)
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
    again = import_file(target, path)
    assert (again.studies_merged, again.trials_added, again.trials_duplicate) == (1, 0, 5)


def test_export_one_study(store, tmp_path):
    _fill(store, "a")
    _fill(store, "b", configs=range(1))
    export(store, tmp_path / "b.json", study="b")
    document = json.loads((tmp_path / "b.json").read_text())
    assert [s["name"] for s in document["studies"]] == ["b"]
    export(store, tmp_path / "b.csv", "csv", study="b")
    with open(tmp_path / "b.csv", newline="") as handle:
        assert {row["study"] for row in csv.DictReader(handle)} == {"b"}


def test_merge_renumbers_conflicting_repeats(open_store, tmp_path):
    here, there = open_store(), open_store()
    _fill(here, configs=range(2))
    _fill(there, configs=range(3))
    export(there, tmp_path / "there.json")
    report = import_file(here, tmp_path / "there.json")
    assert (report.studies_added, report.studies_merged) == (0, 1)
    # config 0 and 1, the failed 9 and invalid 8 collide on repeat 0; config 2 is new.
    assert (report.trials_added, report.trials_conflicting, report.trials_duplicate) == (5, 4, 0)
    repeats = sorted((t.config_key, t.repeat) for t in here.trials("study") if t.state == "COMPLETE")
    assert repeats == sorted([(key(0), 0), (key(0), 1), (key(1), 0), (key(1), 1), (key(2), 0)])
    moved = next(t for t in here.trials() if (t.config_key, t.repeat) == (key(0), 1))
    assert moved.imported_from and moved.phases


def test_different_space_is_imported_under_host_name(open_store, tmp_path):
    here, there = open_store(), open_store()
    _fill(here, space="a")
    _fill(there, space="b")
    export(there, tmp_path / "there.json")
    report = import_file(here, tmp_path / "there.json")
    renamed = f"study@{socket.gethostname()}"
    assert report.renamed == {"study": renamed} and renamed in report.summary()
    assert (report.studies_added, report.trials_added, report.trials_conflicting) == (1, 5, 0)
    assert here.get_study(renamed).space_hash == SPACES["b"].hash
    assert len(here.trials("study")) == 6
    again = import_file(here, tmp_path / "there.json")
    assert (again.studies_merged, again.trials_duplicate, again.renamed) == (1, 5, {"study": renamed})


def _corrupt_files(tmp_path, good: dict) -> list:
    truncated = json.dumps(good)
    bad_trial = json.loads(json.dumps(good))
    bad_trial["studies"][0]["trials"][-1]["state"] = "EXPLODED"
    second_bad = json.loads(json.dumps(good))
    second_bad["studies"].append({"name": "late", "space_hash": "x", "trials": [{"uid": "u1"}]})
    missing_phase_bytes = json.loads(json.dumps(good))
    measured = next(t for t in missing_phase_bytes["studies"][0]["trials"] if t["measurements"])
    measured["measurements"][0]["bytes"] = "lots"
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
    export(there, tmp_path / "good.json")
    good = json.loads((tmp_path / "good.json").read_text())
    before = _snapshot(here)
    for path in _corrupt_files(tmp_path, good):
        with pytest.raises(StoreError) as info:
            import_file(here, path)
        assert "\n" not in str(info.value) and path.name in str(info.value)
        assert _snapshot(here) == before, path.name
    assert import_file(here, tmp_path / "good.json").trials_added == 5


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_flat_export_round_trip(open_store, tmp_path, fmt):
    source, target = open_store(), open_store()
    _fill(source)
    path = tmp_path / f"rows.{fmt}"
    export(source, path, fmt)
    report = import_file(target, path)
    assert (report.studies_added, report.trials_added, report.trials_skipped_running) == (1, 5, 1)
    keep = ("uid", "config", "config_key", "workload_key", "repeat", "state", "error", "started_at", "phases")
    expected = [{k: getattr(t, k) for k in keep} for t in source.trials() if t.state != "RUNNING"]
    assert [{k: getattr(t, k) for k in keep} for t in target.trials()] == expected
    assert [t.hints_in_effect for t in target.trials() if t.state == "COMPLETE"][0] == complete().hints_in_effect
    assert target.get_study("study").space_hash == SPACES["a"].hash
    assert target.trials()[0].imported_from.startswith(str(path))
    rows_there = [{k: v for k, v in r.items() if k not in ("state",)} for r in target.rows()]
    rows_here = [{k: v for k, v in r.items() if k not in ("state",)} for r in source.rows() if r["state"] != "RUNNING"]
    assert rows_there == rows_here
    assert import_file(target, path).trials_duplicate == 5


@pytest.mark.parametrize("fmt", ["csv", "parquet", "json"])
def test_export_empty_store(open_store, tmp_path, fmt):
    source, target = open_store(), open_store()
    export(source, tmp_path / f"empty.{fmt}", fmt)
    report = import_file(target, tmp_path / f"empty.{fmt}")
    assert report.trials_added == 0 and target.list_studies() == []


def test_export_errors(store, tmp_path):
    with pytest.raises(StoreError, match="format"):
        export(store, tmp_path / "x.xml", "xml")
    with pytest.raises(StoreError, match="no study"):
        export(store, tmp_path / "x.json", study="nope")
    with pytest.raises(OutputError, match="cannot write the export"):
        export(store, tmp_path / "no" / "dir" / "x.json")


def test_flat_export_of_a_space_of_many_levels_imports_back(open_store, tmp_path):
    """The study's space YAML of a 20,000-level range is a cell of about 200 KB: more than the csv module's
    default field limit (128 KiB), less than the 4 MiB a space may have (100,000 levels are about 1 MB)."""
    store, target = open_store(), open_store()
    space = Space.from_text(SPACE_TEXT.replace("levels: [1, 2, 4]", "range: [1, 20000]"))
    record = store.create_study("wide", space.to_yaml(), space.hash, {"runner": "builtin"}, "a test")
    made = space.configuration({"cb_nodes": 19_999, "collective": True, "striping_unit": 1 << 20})
    trial = store.start_trial(record.id, made.to_dict(), made.key, made.workload_key, 0, None,
                              BenchmarkSpec(processes=2).to_dict())
    store.finish_trial(trial, complete())
    export(store, tmp_path / "wide.csv", "csv")
    assert len(space.to_yaml()) > 128 << 10
    assert import_file(target, tmp_path / "wide.csv").trials_added == 1
    assert target.get_study("wide").space_hash == space.hash
