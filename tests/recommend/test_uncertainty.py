"""Spread of recommended candidates and the "cannot be told apart" verdict (paper 003, Sections 5-6).

Synthetic test data: trial times are chosen here, nothing was measured.
"""

import dataclasses
import json
import math

import numpy as np
import pytest
from scipy.stats import t as student_t

from iotune.cli.recommend_cmd import run_recommend
from iotune.recommend import CostModel, Recommender
from iotune.recommend.uncertainty import attach_spread, spread_label
from iotune.space import Space
from iotune.store import Store
from iotune.store.records import StudyRecord
from iotune.stored import StoredStudy
from iotune.variability import runs_needed_for_cv
from tests.learn.synthetic import measurement
from tests.recommend.conftest import make_model

SPACE = """
name: spread
parameters:
  - {name: transfer_size, type: size, levels: [1MiB], role: workload, layer: application}
  - {name: cb_nodes, type: integer, levels: [1, 2, 4, 8], role: system, layer: mpiio}
  - {name: striping_factor, type: integer, levels: [1, 4, 8], role: system, layer: filesystem}
"""
WORKLOAD = {"transfer_size": "1MiB"}


@pytest.fixture
def space():
    return Space.from_text(SPACE)


def config(space, cb, stripes):
    return space.configuration({"transfer_size": "1MiB", "cb_nodes": cb, "striping_factor": stripes})


def runs(mean, cv, n, seed=0):
    """``n`` run times (seconds) with exactly this sample mean and cv."""
    z = np.random.default_rng(seed).normal(size=n)
    z = (z - z.mean()) / z.std(ddof=1)
    return mean * (1.0 + cv * z)


def make_store(path, space, measured, name="s"):
    """Study ``name`` with ``measured``: {(cb_nodes, striping_factor): run times in seconds}."""
    store = Store(path)
    study = store.create_study(name, space.to_yaml(), space.hash, {"runner": "synthetic"}, "synthetic test data")
    for (cb, stripes), times in measured.items():
        c = config(space, cb, stripes)
        for repeat, seconds in enumerate(times):
            trial = store.start_trial(study.id, c.to_dict(), c.key, c.workload_key, repeat)
            store.finish_trial(trial, measurement(float(seconds)))
    return store


def recommend(space, seconds, top=2, objective="time", target="time"):
    """A recommendation from a tree that predicts ``seconds[(cb, stripes)]`` (default 10 s)."""
    fn = (lambda c: seconds.get((c["cb_nodes"], c["striping_factor"]), 10.0))
    if target == "bandwidth":
        fn = (lambda c, f=fn: 100.0 / f(c))
    model = make_model(space, fn, target=target)
    pricing = dataclasses.replace(CostModel.from_yaml(), default_instance_type="cc1.4xlarge")
    return Recommender(model, pricing).recommend(WORKLOAD, objective=objective, top=top, compute_instances=1)


def test_clear_gap_small_spread_is_ahead(space, tmp_path):
    with make_store(tmp_path / "a.db", space, {(1, 1): runs(1.0, 0.01, 5), (2, 1): runs(2.0, 0.01, 5)}) as store:
        result = attach_spread(recommend(space, {(1, 1): 1.0, (2, 1): 2.0}), StoredStudy.open(store, "s"))
    first, second = (c.spread for c in result.candidates)
    assert first.source == second.source == "measured"
    assert first.n_measured == 5 and first.cv == pytest.approx(0.01) and first.mean_seconds == pytest.approx(1.0)
    assert first.sd == pytest.approx(0.01 * 1.0) and second.sd == pytest.approx(0.01 * 2.0)
    assert first.runs_for_precision == runs_needed_for_cv(0.01, 0.05, 0.95)
    assert result.separation.verdict == "ahead" and result.separation.ranks == [1]
    assert "candidate 1 is ahead beyond the run-to-run spread" in result.separation.message
    assert spread_label(first) == "±1% cv (measured, n=5)"


def test_close_means_large_spread_cannot_be_told_apart(space, tmp_path):
    measured = {(1, 1): runs(1.0, 0.3, 5), (2, 1): runs(1.05, 0.3, 5, seed=1)}
    with make_store(tmp_path / "b.db", space, measured) as store:
        result = attach_spread(recommend(space, {(1, 1): 1.0, (2, 1): 1.05}), StoredStudy.open(store, "s"))
    separation = result.separation
    assert separation.verdict == "indistinguishable" and separation.ranks == [1, 2]
    a, b = (0.3 * 1.0) ** 2 / 5, (0.3 * 1.05) ** 2 / 5
    df = (a + b) ** 2 / (a * a / 4 + b * b / 4)
    comparison = separation.comparisons[0]
    assert comparison.gap == pytest.approx(0.05)
    assert comparison.threshold == pytest.approx(student_t.ppf(0.975, df) * math.sqrt(a + b))
    expected = max(runs_needed_for_cv(0.3, 0.05 / 2 / 1.0), runs_needed_for_cv(0.3, 0.05 / 2 / 1.05))
    assert separation.runs_each == expected > 100
    assert separation.message == (f"candidates 1-2 cannot be told apart without more runs: about {expected} runs "
                                  "each would separate them at 95%")


def test_equal_predictions_need_no_run_count(space, tmp_path):
    measured = {(1, 1): runs(1.0, 0.1, 4), (2, 1): runs(1.0, 0.1, 4, seed=1)}
    with make_store(tmp_path / "c.db", space, measured) as store:
        result = attach_spread(recommend(space, {(1, 1): 1.0, (2, 1): 1.0}), StoredStudy.open(store, "s"))
    assert result.separation.verdict == "indistinguishable" and result.separation.runs_each is None
    precise = runs_needed_for_cv(0.1, 0.05, 0.95)
    assert result.separation.message == ("candidates 1-2 cannot be told apart: the model predicts the same value for "
                                         f"them, so only measuring them can rank them (about {precise} runs each for "
                                         "a ±5% interval of the mean at 95%)")


def test_unmeasured_configuration_gets_predicted_spread(space, tmp_path):
    cvs = {(1, 1): 0.1, (1, 8): 0.2, (8, 1): 0.3, (8, 8): 0.4}
    measured = {key: runs(5.0, cv, 5, seed=i) for i, (key, cv) in enumerate(cvs.items())}  # 5: its own cv
    with make_store(tmp_path / "d.db", space, measured) as store:
        result = attach_spread(recommend(space, {(4, 4): 1.0, (8, 8): 1.2}), StoredStudy.open(store, "s"))
    inside, corner = (c.spread for c in result.candidates)
    assert inside.source == "predicted (delaunay)" and inside.n_measured == 0 and inside.mean_seconds is None
    assert 0.1 < inside.cv < 0.4
    assert inside.runs == max(2, inside.runs_for_precision) == runs_needed_for_cv(inside.cv, 0.05, 0.95)
    assert corner.source == "measured" and corner.cv == pytest.approx(0.4)
    assert spread_label(inside).endswith("cv (predicted, delaunay)")
    assert result.separation.verdict in ("ahead", "indistinguishable")


def test_outside_the_measured_hull_falls_back_to_linear(space, tmp_path):
    measured = {(1, 1): runs(5.0, 0.1, 3), (1, 8): runs(5.0, 0.2, 3, 1), (2, 1): runs(5.0, 0.1, 3, 2)}
    with make_store(tmp_path / "e.db", space, measured) as store:
        result = attach_spread(recommend(space, {(8, 4): 1.0}, top=1), StoredStudy.open(store, "s"))
    spread = result.best.spread
    assert spread.source == "predicted (linear)" and spread.cv >= 0
    assert result.separation.verdict == "unknown" and result.separation.reason == "only one candidate to compare"


@pytest.mark.parametrize("objective,target", [("cost", "time"), ("bandwidth", "bandwidth")])
def test_cost_and_bandwidth_scale_by_cv(space, tmp_path, objective, target):
    measured = {(1, 1): runs(1.0, 0.2, 5), (2, 1): runs(2.0, 0.2, 5, 1)}
    with make_store(tmp_path / "f.db", space, measured) as store:
        result = attach_spread(recommend(space, {(1, 1): 1.0, (2, 1): 2.0}, objective=objective, target=target),
                               StoredStudy.open(store, "s"))
    for candidate in result.candidates:
        assert candidate.spread.source == "measured"
        assert candidate.spread.sd == pytest.approx(candidate.spread.cv * candidate.predicted)
    assert result.separation.verdict in ("ahead", "indistinguishable")


def test_without_repeats_spread_is_unknown_and_recommendation_stands(space, tmp_path):
    plain = recommend(space, {(1, 1): 1.0, (2, 1): 2.0})
    with make_store(tmp_path / "g.db", space, {(1, 1): [1.0], (2, 1): [2.0]}) as store:
        result = attach_spread(plain, StoredStudy.open(store, "s"))
    assert [c.configuration for c in result.candidates] == [c.configuration for c in plain.candidates]
    assert all(c.spread.source == "unknown" and c.spread.reason for c in result.candidates)
    assert result.separation.verdict == "unknown"
    assert "repeats" in result.best.spread.reason
    assert plain.best.spread is None and plain.separation is None
    json.dumps(result.to_dict())


def test_broken_store_does_not_fail_the_recommendation(space):
    record = StudyRecord(1, "s", "", "", space.hash, space.to_yaml(), {})
    result = attach_spread(recommend(space, {(1, 1): 1.0}), StoredStudy(object(), record))
    assert result.best.spread.source == "unknown" and result.separation.verdict == "unknown"


def test_cli_prints_spread_and_verdict(space, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    path = tmp_path / "h.db"
    make_store(path, space, {(1, 1): runs(1.0, 0.3, 5), (2, 1): runs(1.05, 0.3, 5, 1)}).close()
    model = make_model(space, lambda c: {(1, 1): 1.0, (2, 1): 1.05}.get((c["cb_nodes"], c["striping_factor"]), 10.0))
    run_recommend(model, WORKLOAD, top=2, fmt="json", db=str(path), study="s")
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["candidates"][0]["spread"]["source"] == "measured"
    assert data["candidates"][0]["spread"]["n_measured"] == 5
    assert data["separation"]["verdict"] == "indistinguishable" and data["separation"]["runs_each"] > 100
    assert "cannot be told apart without more runs" in err
    run_recommend(model, WORKLOAD, top=2, fmt="csv", db=str(path), study="s")
    out, _ = capsys.readouterr()
    assert "spread_of_time" in out.splitlines()[0] and "±30% cv (measured, n=5)" in out  # CSV: machine keys
    run_recommend(model, WORKLOAD, top=2, fmt="csv", db=str(path), study="s", spread=False)
    out, err = capsys.readouterr()
    assert "spread" not in out and "told apart" not in err


def test_two_runs_that_agree_do_not_separate_candidates_in_a_noisy_study(space, tmp_path):
    """Candidates 1 and 2 ran twice each, almost identically, 10% apart; the study's other configurations vary by
    about 30% a run: the two agreeing runs are no evidence of a quiet configuration."""
    measured = {(1, 1): [1.0, 1.001], (2, 1): [1.1, 1.101]}
    measured |= {(cb, 8): runs(3.0, 0.3, 5, seed=cb) for cb in (1, 2, 4, 8)}
    with make_store(tmp_path / "n.db", space, measured) as store:
        result = attach_spread(recommend(space, {(1, 1): 1.0, (2, 1): 1.1}), StoredStudy.open(store, "s"))
    first = result.candidates[0].spread
    assert first.source == "measured" and first.n_measured == 2 and first.cv > 0.2
    assert result.separation.verdict != "ahead"
