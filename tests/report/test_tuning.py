"""The report's tuning section: a tuned study's runs in order, why each was chosen, the best so far with the
interval `tune` states (docs/commands.md promises it)."""

import pytest

from iotune.report.context import StudyData
from iotune.report.tables import system_label
from iotune.report.tuning import NOT_CHOSEN, tuning_section
from iotune.store import Store
from iotune.stored import StoredStudy
from tests.study.test_tune import SPEC, measured_store, tuner


def test_a_tuned_workload_shows_its_runs_reasons_and_best_so_far(tmp_path):
    with measured_store(tmp_path, workloads=("64KiB", "4MiB")) as store:
        result = tuner(store, tmp_path, 5).run()
        section = tuning_section(StudyData.load(StoredStudy.open(store, "landscape")))
    assert section.empty is None and len(section.tables) == 1  # the campaign's workloads were not tuned
    table = section.tables[0]
    assert table.column("run") == [1, 2, 3, 4, 5]
    assert table.column("configuration") == [system_label(SPEC.space, s.configuration.to_dict()) for s in result.steps]
    assert table.column("why it was chosen") == [s.reason for s in result.steps]
    assert table.column("why it was chosen")[0] == "the default configuration: the baseline to beat"
    last = table.rows[-1]
    assert last[4] == system_label(SPEC.space, result.best.configuration.to_dict())
    assert last[5:9] == pytest.approx((result.best.mean, result.best.low, result.best.high, result.best.runs))
    assert f"{result.gain:.3g}x the default configuration" in section.paragraphs[-1]


def test_runs_the_tuner_did_not_choose_say_so(tmp_path):
    with measured_store(tmp_path, workloads=("64KiB", "256KiB")) as store:
        tuner(store, tmp_path, 2, workload={"transfer_size": 2**20}).run()
        store.update_settings("landscape", {"sampler": "tune"})  # as a study made by `iotune tune`
        section = tuning_section(StudyData.load(StoredStudy.open(store, "landscape")))
    reasons = [r for table in section.tables for r in table.column("why it was chosen")]
    assert NOT_CHOSEN in reasons and "the default configuration: the baseline to beat" in reasons


def test_an_untuned_study_says_there_is_no_tuning(tmp_path):
    with Store(tmp_path / "db.sqlite") as store:
        StoredStudy.create(store, "landscape", SPEC)
        section = tuning_section(StudyData.load(StoredStudy.open(store, "landscape")))
    assert section.empty and "No workload of this study was tuned" in section.empty
