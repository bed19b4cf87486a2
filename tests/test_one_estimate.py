"""Issue 29: one estimate everywhere.  A study measured once (one workload measured in full by a campaign, one
tuned with a race) gives the same best, gain and interval from `iotune results`, `iotune recommend`, `iotune tune`
(no new runs), the report and the Python API."""

import contextlib
import io
import json

import pytest

from iotune.api import load_study
from iotune.cli.app import main
from iotune.report.context import StudyData
from iotune.report.recommendation import recommendation_section
from iotune.stored import StoredStudy
from iotune.study import Objective, Study, Worker
from iotune.study.tune import Tuning
from tests.study.test_race import DriftingLandscape
from tests.study.test_tune import SPEC_TEXT, measured_store

WORKLOADS = {"1MiB": 1 << 20, "256KiB": 256 << 10}  # measured in full (2 repeats each) / tuned with a race


def iotune(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    path = tmp_path_factory.mktemp("one-estimate")
    with measured_store(path) as store:
        study = Study.open(store, "landscape")
        result = Tuning(study, Worker(study, DriftingLandscape(seed=2), path), {"transfer_size": 256 << 10}, 16,
                        objective=Objective("time")).run()
        assert result.confirmed  # the tuned workload raced
    return path / "db.sqlite", path


def close(a, b):
    return a == pytest.approx(b, rel=1e-9)


@pytest.mark.parametrize("size", sorted(WORKLOADS))
def test_results_recommend_tune_report_and_the_api_state_the_same_numbers(measured, size):
    db, path = measured
    workload = {"transfer_size": WORKLOADS[size]}
    code, out, err = iotune("results", "--study", "landscape", "--format", "json", "--db", db)
    assert code == 0, err
    row = next(r for r in json.loads(out) if r["workload"]["transfer_size"] == WORKLOADS[size])["decision"]
    best, gain, interval = row["best"], row["gain_vs_default"], row["gain_interval_95"]
    assert gain is not None and interval is not None

    code, out, err = iotune("recommend", "--study", "landscape", "--workload", f"transfer_size={size}",
                            "--format", "json", "--db", db)
    assert code == 0, err
    answer = json.loads(out)
    assert answer["best"] == best and close(answer["gain_vs_default"], gain)
    assert all(close(a, b) for a, b in zip(answer["gain_interval_95"], interval, strict=True))

    spec = path / "landscape.yaml"
    spec.write_text(SPEC_TEXT)
    code, out, err = iotune("tune", spec, "--budget", "2", "--workload", f"transfer_size={size}", "--format", "json",
                            "--db", db, "--scratch", path / "scratch")
    assert code == 0, err
    tuned = json.loads(out)
    assert tuned["runs"] > 2  # nothing new was run: the budget was spent before
    assert {k: v for k, v in tuned["best"]["configuration"].items() if v is not None} == \
        {k: v for k, v in best.items() if v is not None}
    assert close(tuned["gain_vs_default"]["ratio"], gain)
    assert all(close(a, b) for a, b in zip(tuned["gain_vs_default"]["interval_95"], interval, strict=True))

    decision = load_study("landscape", storage=f"sqlite:///{db}").decision(workload)
    assert decision.best == best and close(decision.gain, gain)
    assert close(decision.gain_interval.low, interval[0]) and close(decision.gain_interval.high, interval[1])

    from iotune.store import Store

    with Store(db, create=False) as store:
        data = StudyData.load(StoredStudy.open(store, "landscape"))
        section = recommendation_section(data, workload)
    table = section.tables[0]
    header = list(table.columns)
    shown = table.rows[0]
    ratio = shown[header.index(next(c for c in header if "gain" in c.lower() or "vs default" in c.lower()))]
    assert close(ratio, gain)


def test_recommend_answers_from_the_study_that_measured_the_workload(measured):
    """A workload tuned in a study of its own (a value between the spec's levels) is answered from those runs, not
    predicted, when `recommend` is asked about the spec's study."""
    from tests.study.test_tune import Landscape

    db, path = measured
    with load_study("landscape", storage=f"sqlite:///{db}") as study:
        tuned = study.tune(workload={"transfer_size": "2MiB"}, budget=8, runner=Landscape(seed=3),
                           scratch=path / "scratch")
    code, out, err = iotune("recommend", "--study", "landscape", "--workload", "transfer_size=2MiB", "--format",
                            "json", "--db", db)
    assert code == 0, err
    answer = json.loads(out)
    assert answer["basis"] == "measured"
    assert any("measured in study landscape-transfer_size=2MiB" in note for note in answer["notes"])
    assert {k: v for k, v in answer["best"].items() if v is not None} == \
        {k: v for k, v in tuned.best.configuration.to_dict().items() if v is not None}


def test_a_tuned_studys_report_answers_from_the_study_that_measured_the_workload(measured):
    """The study `tune` made for a value between the spec's levels reports the spec's measured workloads from the
    study that measured them (as `recommend` does), not "measure it"."""
    from tests.study.test_tune import Landscape

    db, path = measured
    with load_study("landscape", storage=f"sqlite:///{db}") as study:
        study.tune(workload={"transfer_size": "2MiB"}, budget=8, runner=Landscape(seed=3), scratch=path / "scratch")
    code, out, err = iotune("results", "--study", "landscape", "--format", "json", "--db", db)
    assert code == 0, err
    measured_row = next(r for r in json.loads(out) if r["workload"]["transfer_size"] == WORKLOADS["1MiB"])
    from iotune.store import Store

    with Store(db, create=False) as store:
        data = StudyData.load(StoredStudy.open(store, "landscape-transfer_size=2MiB"))
        section = recommendation_section(data, {"transfer_size": WORKLOADS["1MiB"]})
    header = list(section.tables[0].columns)
    shown = section.tables[0].rows[0]
    assert shown[header.index("gain from")] != "none"
    assert close(shown[header.index("expected gain (x)")], measured_row["decision"]["gain_vs_default"])
    assert any("measured in study landscape " in p for p in section.paragraphs)
