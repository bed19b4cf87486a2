"""Issue 22, item 4: a large export is imported as it is read (a JSON export a trial at a time, flat rows a
trial at a time), with progress from the first byte.  ``STREAM_ABOVE`` is lowered so that the small files
here take the path a large file takes."""

from __future__ import annotations

import csv
import json

import pytest
from tests.store.test_exchange import _comparable, _fill

from iotune.errors import StoreError
from iotune.store import exchange
from iotune.store.exchange import export, import_file


@pytest.fixture
def streamed(monkeypatch):
    monkeypatch.setattr(exchange, "STREAM_ABOVE", 0)


def test_a_streamed_json_export_imports_as_a_whole_one_does(open_store, tmp_path, streamed):
    source, target = open_store(), open_store()
    _fill(source, "one")
    _fill(source, "two", space="b")
    export(source, tmp_path / "out.json")
    shown = []
    report = import_file(target, tmp_path / "out.json", progress=lambda done, total: shown.append((done, total)))
    assert (report.studies_added, report.trials_added, report.trials_skipped_running) == (2, 10, 2)
    expected = [_comparable(t) for t in source.trials() if t.state != "RUNNING"]
    assert [_comparable(t) for t in target.trials()] == expected
    size = (tmp_path / "out.json").stat().st_size
    assert shown[0] == (0, size) and shown[-1] == (size, size)


@pytest.mark.parametrize("damage", ["cut", "trials-first", "studies-first", "after"])
def test_a_streamed_json_export_that_is_damaged_or_out_of_order_is_refused_whole(open_store, tmp_path, streamed,
                                                                                 damage):
    source, target = open_store(), open_store()
    _fill(source, "one")
    export(source, tmp_path / "out.json")
    document = json.loads((tmp_path / "out.json").read_text())
    text = json.dumps(document, indent=1)
    if damage == "cut":
        text = text[:len(text) * 3 // 4]
    elif damage == "trials-first":
        study = document["studies"][0]
        document["studies"][0] = {"trials": study.pop("trials"), **study}
        text = json.dumps(document)
    elif damage == "studies-first":
        text = json.dumps({"studies": document.pop("studies"), **document})
    else:
        text = text + " {}"
    (tmp_path / "bad.json").write_text(text)
    with pytest.raises(StoreError) as error:
        import_file(target, tmp_path / "bad.json")
    assert "\n" not in str(error.value)
    assert target.trials() == [] and target.list_studies() == []


def test_flat_rows_of_one_trial_apart_from_each_other_are_refused(open_store, tmp_path):
    source, target = open_store(), open_store()
    _fill(source, "one")
    export(source, tmp_path / "rows.csv", "csv")
    with open(tmp_path / "rows.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    measured = [i for i, row in enumerate(rows) if row["phase"]]
    rows.append(rows.pop(measured[0]))  # the first trial's write phase moved to the end
    with open(tmp_path / "apart.csv", "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(StoreError, match="rows apart"):
        import_file(target, tmp_path / "apart.csv")
    assert target.trials() == []


def test_flat_rows_of_two_studies_import_study_by_study_with_progress(open_store, tmp_path):
    source, target = open_store(), open_store()
    _fill(source, "one")
    _fill(source, "two", space="b")
    export(source, tmp_path / "rows.csv", "csv")
    shown = []
    report = import_file(target, tmp_path / "rows.csv", progress=lambda done, total: shown.append((done, total)))
    assert (report.studies_added, report.trials_added) == (2, 10)
    assert {t.config_key for t in target.trials()} == {t.config_key for t in source.trials() if t.state != "RUNNING"}
    for trial in target.trials():
        assert set(trial.config) == {p.name for p in target.get_study(trial.study).space.parameters}
    size = (tmp_path / "rows.csv").stat().st_size
    assert shown[0] == (0, size) and shown[-1][0] > 0
