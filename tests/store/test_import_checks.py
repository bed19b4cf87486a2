"""Imported exports cannot poison results: every field is checked, all or nothing (issue 13, item 4)."""

from __future__ import annotations

import copy
import csv
import json
import math
from pathlib import Path

import pytest

from iotune.errors import StoreError
from iotune.records import BenchmarkSpec, Measurement, PhaseResult
from iotune.space import Space
from iotune.spec import load_spec
from iotune.store import Store, exchange
from iotune.store import import_checks as checks
from iotune.store.exchange import export, import_file

SPACE = Space.from_text("""\
name: poison
parameters:
  - {name: transfer_size, type: size, levels: [64KiB, 1MiB], role: workload, layer: application}
  - {name: romio_cb_write, type: categorical, levels: [enable, disable], role: system, layer: mpiio}
""")


def _good_export(tmp_path) -> dict:
    """A real export of one study with two COMPLETE trials (seconds 1.0 and 2.0) and one FAILED."""
    with Store(tmp_path / "source.db") as store:
        study = store.create_study("poison", SPACE.to_yaml(), SPACE.hash, {})
        for index, (size, hint) in enumerate([("64KiB", "enable"), ("64KiB", "disable"), ("1MiB", "enable")]):
            made = SPACE.configuration({"transfer_size": size, "romio_cb_write": hint})
            trial = store.start_trial(study.id, made.to_dict(), made.key, made.workload_key, 0, None,
                                      BenchmarkSpec(processes=2).to_dict())
            if index == 2:
                store.finish_trial(trial, Measurement.failed("disk full"))
            else:
                phase = PhaseResult("write", 2**20, 1.0 + index, 0.01, 0.9, 0.01 + index, 16)
                store.finish_trial(trial, Measurement(status="COMPLETE", phases=[phase], wall_seconds=2.0))
        export(store, tmp_path / "good.json")
    return json.loads((tmp_path / "good.json").read_text())


def _first_complete(document: dict) -> dict:
    return next(t for t in document["studies"][0]["trials"] if t["state"] == "COMPLETE")


def _set(path: str, value):
    """A mutation setting one field of the first COMPLETE trial (``a.b`` walks into objects, ``m`` = first phase)."""
    def mutate(document):
        target = _first_complete(document)
        *parents, last = path.split(".")
        for part in parents:
            target = target["measurements"][0] if part == "m" else target[part]
        target[last] = value
    return mutate


def _study(field: str, value):
    def mutate(document):
        document["studies"][0][field] = value
    return mutate


POISONS = {
    "negative seconds": (_set("m.seconds", -5), "seconds"),
    "zero seconds": (_set("m.seconds", 0), "seconds"),
    "NaN seconds": (_set("m.seconds", math.nan), "seconds"),
    "infinite seconds": (_set("m.seconds", math.inf), "seconds"),
    "text seconds": (_set("m.seconds", "fast"), "seconds"),
    "negative bytes": (_set("m.bytes", -1), "bytes"),
    "boolean bytes": (_set("m.bytes", True), "bytes"),
    "fractional bytes": (_set("m.bytes", 1.5), "bytes"),
    "negative open time": (_set("m.open_seconds", -0.1), "open_seconds"),
    "unknown phase": (_set("m.phase", "explode"), "phase"),
    "negative repeat": (_set("repeat", -1), "repeat"),
    "huge repeat": (_set("repeat", 10**12), "repeat"),
    "empty config": (_set("config", {}), "config"),
    "config not in space": (_set("config.romio_cb_write", "automatic"), "not a configuration"),
    "config lacks a parameter": (lambda d: _first_complete(d)["config"].pop("romio_cb_write"), "lacks"),
    "config of another parameter": (_set("config.colour", "red"), "not a configuration"),
    "config_key of another configuration": (_set("config_key", "0123456789abcdef"), "config_key"),
    "unknown state": (_set("state", "WON"), "state"),
    "complete without phases": (_set("measurements", []), "at least one"),
    "negative wall time": (_set("wall_seconds", -3.0), "wall_seconds"),
    "NaN wall time": (_set("wall_seconds", math.nan), "wall_seconds"),
    "measurements not a list": (_set("measurements", {"phase": "write"}), "measurements"),
    "uid too long": (_set("uid", "u" * 500), "uid"),
    "control characters in the error": (_set("error", "a\x00b"), "error"),
    "started_at not a time": (_set("started_at", "yesterday"), "started_at"),
    "hints not text": (_set("hints_in_effect", {"cb_nodes": [1, 2]}), "hints_in_effect"),
    "benchmark that cannot run": (_set("benchmark.transfer_size", 0), "benchmark"),
    "benchmark with a malformed variable": (_set("benchmark.env", {"BASH_FUNC_x%%": "() { id; }"}), "benchmark"),
    "space hash of another space": (_study("space_hash", "0000000000000000"), "space_hash"),
    "space that does not parse": (_study("space_yaml", "name: [unclosed"), "space_yaml"),
    "study without a name": (_study("name", ""), "name"),
    "study name with a newline": (_study("name", "a\nb"), "name"),
    "trials not a list": (_study("trials", "many"), "trials"),
}


@pytest.mark.parametrize("poison", sorted(POISONS))
def test_poisoned_export_is_refused_whole_with_one_line(tmp_path, poison):
    mutate, fragment = POISONS[poison]
    document = _good_export(tmp_path)
    mutate(document)
    path = tmp_path / "poisoned.json"
    path.write_text(json.dumps(document))  # json writes NaN and Infinity, which Python's reader accepts
    with Store(tmp_path / "target.db") as store:
        with pytest.raises(StoreError) as info:
            import_file(store, path)
        message = str(info.value)
        assert "\n" not in message and fragment in message and "poisoned.json" in message
        assert "study 'poison'" in message or "study #1" in message
        assert store.list_studies() == [] and store.trials() == []


def test_the_good_export_imports_and_its_times_are_the_measured_ones(tmp_path):
    document = _good_export(tmp_path)
    path = tmp_path / "good.json"
    with Store(tmp_path / "target.db") as store:
        report = import_file(store, path)
        assert (report.studies_added, report.trials_added) == (1, 3)
        seconds = sorted(t.io_seconds for t in store.trials(state="COMPLETE"))
        assert seconds == [1.0, 2.0]
        assert report.settings["poison"]["hints"] == {"romio_cb_write": ["enable", "disable"]}
    assert document["studies"][0]["trials"]


def test_pending_and_running_trials_are_skipped_not_queued(tmp_path):
    document = _good_export(tmp_path)
    unfinished = copy.deepcopy(document["studies"][0]["trials"][:2])
    for trial, state in zip(unfinished, ("PENDING", "RUNNING")):
        trial.update(state=state, uid=trial["uid"][:-1] + "x", measurements=[], repeat=7)
        trial["benchmark"]["env"] = {"BASH_ENV": "/tmp/payload.sh"}
    document["studies"][0]["trials"] += unfinished
    path = tmp_path / "live.json"
    path.write_text(json.dumps(document))
    with Store(tmp_path / "target.db") as store:
        report = import_file(store, path)
        assert (report.trials_added, report.trials_skipped_running) == (3, 2)
        assert {t.state for t in store.trials()} == {"COMPLETE", "FAILED"}


def test_csv_row_is_named_and_nothing_is_kept(tmp_path):
    _good_export(tmp_path)
    with Store(tmp_path / "source.db") as store:
        export(store, tmp_path / "rows.csv", "csv")
    with open(tmp_path / "rows.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    index = max(i for i, row in enumerate(rows) if row["state"] == "COMPLETE")
    rows[index]["seconds"] = "-5"
    with open(tmp_path / "bad.csv", "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with Store(tmp_path / "target.db") as store:
        with pytest.raises(StoreError, match=rf"row {index + 2} .*seconds"):
            import_file(store, tmp_path / "bad.csv")
        assert store.trials() == []


def test_deep_json_and_huge_files_are_refused(tmp_path, monkeypatch):
    deep = tmp_path / "deep.json"
    deep.write_text('{"format": "iotune-export", "version": 1, "studies": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with Store(tmp_path / "target.db") as store:
        with pytest.raises(StoreError, match="deep"):
            import_file(store, deep)
        monkeypatch.setattr(exchange, "MAX_IMPORT_BYTES", 1000)
        big = tmp_path / "big.json"
        big.write_text(json.dumps({"format": "iotune-export", "version": 1, "studies": [], "pad": "x" * 2000}))
        with pytest.raises(StoreError, match="more than"):
            import_file(store, big)


GROUND_TRUTH = Path(__file__).parents[2] / "data" / "ground_truth"


def test_compact_ground_truth_csv_needs_its_spec_and_then_imports(tmp_path):
    lines = (GROUND_TRUTH / "hints_ground_truth.csv").read_text().splitlines()
    part = tmp_path / "part.csv"
    part.write_text("\n".join(lines[:41]) + "\n")  # 40 rows: 20 trials of write and read
    with Store(tmp_path / "target.db") as store:
        with pytest.raises(StoreError, match=r"without the study, config_key, state column.*--spec SPEC.yaml"):
            import_file(store, part)
        spec = load_spec(GROUND_TRUTH / "hints_ground_truth.yaml")
        report = import_file(store, part, spec=spec, study="gt")
        assert (report.studies_added, report.trials_added) == (1, 20)
        trials = store.trials("gt")
        assert {t.state for t in trials} == {"COMPLETE"} and all(len(t.phases) == 2 for t in trials)
        assert all(spec.space.configuration(t.config).key == t.config_key for t in trials)
        assert store.get_study("gt").space_hash == spec.space.hash
        assert import_file(store, part, spec=spec, study="gt").trials_duplicate == 20


@pytest.mark.parametrize(("damage", "fragment"), [
    (lambda text, lines, i: "\n".join(lines[:i + 1] + [lines[i]] * 2 + lines[i + 1:]) + "\n", "appears 3 times"),
    (lambda text, lines, i: text[:-1 - len(lines[-1]) // 2], "fewer cells|cut short"),
    (lambda text, lines, i: text[:-3], "cut short"),
], ids=["rows-repeated", "cut-mid-row", "cut-in-last-field"])
def test_a_flat_csv_with_rows_repeated_or_cut_short_is_refused(tmp_path, damage, fragment):
    """Before: each trial's phases were tripled, or the last row read short, without a word (issue 22, item 3)."""
    _good_export(tmp_path)
    with Store(tmp_path / "source.db") as store:
        export(store, tmp_path / "rows.csv", "csv")
    text = (tmp_path / "rows.csv").read_text()
    lines = text.splitlines()
    index = max(i for i, line in enumerate(lines) if ",COMPLETE," in line)
    (tmp_path / "bad.csv").write_text(damage(text, lines, index))
    with Store(tmp_path / "target.db") as store:
        with pytest.raises(StoreError, match=fragment):
            import_file(store, tmp_path / "bad.csv")
        assert store.trials() == []


HINTED = """\
name: hinted
parameters:
  - {name: romio_cb_write, type: categorical, levels: [enable, "enable;cb_nodes=99"], role: system, layer: mpiio}
"""


@pytest.mark.parametrize("where", ["space", "benchmark"])
def test_hint_values_a_spec_refuses_are_refused_on_import(tmp_path, where):
    """Issue 32, item 7: a hint value a spec would refuse (here one that adds a hint of its own where the
    application reads it) was imported, and the study then could not run it.  One line, naming the value; nothing
    of the file kept."""
    space = Space.from_text(HINTED if where == "space" else HINTED.replace(', "enable;cb_nodes=99"', ""))
    with Store(tmp_path / "source.db") as store:
        study = store.create_study("hinted", space.to_yaml(), space.hash, {})
        for made in space.enumerate():
            benchmark = BenchmarkSpec(processes=2, hints={"cb_nodes": "2;striping_factor=99"} if where == "benchmark"
                                      else {}).to_dict()
            trial = store.start_trial(study.id, made.to_dict(), made.key, made.workload_key, 0, None, benchmark)
            store.finish_trial(trial, Measurement(status="COMPLETE", wall_seconds=1.0,
                                                  phases=[PhaseResult("write", 2**20, 1.0, 0.01, 0.9, 0.01, 16)]))
        export(store, tmp_path / "e.json")
    with Store(tmp_path / "target.db") as target:
        with pytest.raises(StoreError) as refused:
            import_file(target, tmp_path / "e.json")
        assert "\n" not in str(refused.value)
        assert ("'enable;cb_nodes=99'" if where == "space" else "'2;striping_factor=99'") in str(refused.value)
        assert target.list_studies() == []


def test_hint_values_keep_their_own_text_when_checked_once():
    """Hint pairs are checked once per import: 1 and 1.0 are equal keys of a cache, not the same text."""
    assert checks.hints({"cb_nodes": 1}, "hints") == {"cb_nodes": "1"}
    assert checks.hints({"cb_nodes": 1.0}, "hints") == {"cb_nodes": "1.0"}
    with pytest.raises(checks.BadRecord, match="must be text"):
        checks.hints({"cb_nodes": float("nan")}, "hints")
    with pytest.raises(checks.BadRecord, match="characters of JSON"):
        checks.hints({f"key{i}": "x" * 1000 for i in range(2000)}, "hints")
