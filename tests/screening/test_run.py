"""Screening and PB-guided collection as stored, resumable campaigns (synthetic runner, no MPI)."""

from dataclasses import replace

import pytest

from iotune.screening import ScreeningError, load_screen
from iotune.spec import load_spec
from iotune.store import Store
from iotune.stored import StoredStudy
from iotune.study.measure import prepare
from tests.screening.conftest import SyntheticRunner


def screen(store, spec_file, study, runner, scratch, resume=False, retry_failed=False, system_only=False):
    spec = load_spec(spec_file)
    spec = replace(spec, campaign=replace(spec.campaign, sampler="screening"),
                   screening=replace(spec.screening, system_only=system_only))
    prepare(store, spec, study, runner, scratch, resume=resume, retry_failed=retry_failed).run()
    return load_screen(StoredStudy.open(store, study))


def test_screen_runs_each_distinct_row_and_ranks_from_the_store(spec_file, tmp_path):
    runner = SyntheticRunner()
    with Store(tmp_path / "s.db") as store:
        result = screen(store, spec_file, "s", runner, tmp_path)
        assert result.ranking[:2] == ["transfer_size", "romio_cb_write"]
        assert result.effects[0].effect_s == pytest.approx(8 * 2.0)  # 8 high rows, +2 s each; the other factors cancel
        assert result.effects[1].effect_s == pytest.approx(8 * 0.5)
        assert result.effects[0].effect_bandwidth < 0 and result.runs == 16
        assert len(runner.calls) == len({t.config_key for t in store.trials("s")}) <= 16
        assert load_screen(StoredStudy.open(store, "s")) == result
        stored = store.get_study("s").settings
        assert stored["design"] == "plackett-burman-foldover" and len(stored["screening"]["factors"]) == 4


def test_missing_rows_tell_to_resume_and_resume_completes(spec_file, tmp_path):
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(ScreeningError, match="--resume"):
            screen(store, spec_file, "s", SyntheticRunner(fail={2}), tmp_path)
        with pytest.raises(ScreeningError, match="--resume"):
            screen(store, spec_file, "s", SyntheticRunner(), tmp_path, resume=True)
        again = SyntheticRunner()
        result = screen(store, spec_file, "s", again, tmp_path, resume=True, retry_failed=True)
        assert len(again.calls) == 1 and result.ranking[0] == "transfer_size"


def test_collection_study_measures_the_pb_guided_configurations(spec_file, tmp_path):
    runner = SyntheticRunner()
    with Store(tmp_path / "s.db") as store:
        result = screen(store, spec_file, "s", runner, tmp_path, system_only=True)
        assert "transfer_size" not in result.ranking
        spec = load_spec(spec_file)
        guided = replace(spec, campaign=replace(spec.campaign, sampler="pb-collect", budget=5,
                                                options={"ranking": result.ranking}))
        report = prepare(store, guided, "s-collect", runner, tmp_path).run()
        assert report.completed == 5
        trials = store.trials("s-collect")
        assert {t.config["transfer_size"] for t in trials} == {64 * 1024}
        assert store.get_study("s-collect").settings["ranking"] == result.ranking


def test_a_screening_study_refuses_other_factors_on_resume(spec_file, tmp_path):
    with Store(tmp_path / "s.db") as store:
        screen(store, spec_file, "s", SyntheticRunner(), tmp_path)
        with pytest.raises(Exception, match="other factors"):
            screen(store, spec_file, "s", SyntheticRunner(), tmp_path, resume=True, system_only=True)
