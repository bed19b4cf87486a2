"""Evaluation and explanation on synthetic test data whose truth is a known function (``synthetic.true_time``)."""

from __future__ import annotations

import pytest

from iotune.learn import EVALUATED, Dataset, LearningError, evaluate, evaluate_dataset, explain
from iotune.learn.explanation import parameter_of
from iotune.learn.model import save_model


@pytest.fixture(scope="module")
def scores(synthetic_db):
    from iotune.store import Store
    from iotune.stored import StoredStudy

    with Store(synthetic_db) as store:
        return {s.predictor: s for s in evaluate(StoredStudy.open(store, "synth"), seed=0)}


def test_table_covers_every_predictor(scores):
    assert tuple(scores) == EVALUATED
    for name in ("rankboost", "random"):
        assert scores[name].mae is None and scores[name].rmse is None and scores[name].kendall_tau is not None
    for name in ("cart", "forest", "linear"):
        s = scores[name]
        assert s.accuracy == pytest.approx(100 - s.mape) and s.mae <= s.rmse
    assert all(s.workloads == 4 for s in scores.values())


def test_trees_learn_the_known_function(scores):
    assert scores["cart"].r2 > 0.9 and scores["forest"].r2 > 0.9
    assert scores["cart"].kendall_tau > 0.8 > abs(scores["random"].kendall_tau)
    for name in ("cart", "forest"):
        assert scores[name].top3_mean < scores["random"].top3_mean
        assert scores[name].top1_mean <= scores[name].top1_max and scores[name].top3_mean <= scores[name].top1_mean


def test_deterministic_for_a_seed(store, scores, synth):
    data = Dataset.from_study(synth)
    again = evaluate_dataset(data, ("cart", "random"), seed=0)
    assert again[0] == scores["cart"] and again[1] == scores["random"]
    other = evaluate_dataset(data, ("random",), seed=1)[0]
    assert other.kendall_tau != scores["random"].kendall_tau


def test_single_workload_has_no_regret_and_bad_arguments_fail(store, synth):
    data = Dataset.from_study(synth)
    keep = data.groups == data.groups[0]
    one = Dataset(data.study, data.space, data.target, data.categorical, data.X[keep], data.y[keep],
                  data.times[keep], data.groups[keep], data.config_keys[keep], [], data.data_hash)
    score = evaluate_dataset(one, ("linear",))[0]
    assert score.top1_mean is None and score.workloads is None and score.mae is not None
    with pytest.raises(LearningError, match="unknown predictor 'svm'"):
        evaluate_dataset(data, ("svm",))
    with pytest.raises(LearningError, match="folds"):
        evaluate_dataset(data, folds=1)


def test_explain_names_the_parameters_that_matter(store, synth):
    explanation = explain(synth)
    assert "|---" in explanation.rules and "romio_cb_write=" in explanation.rules
    assert max(line.count("|   ") for line in explanation.rules.splitlines()) == 4  # 4 levels of conditions
    names = [row[0] for row in explanation.importances]
    assert sorted(names) == sorted(p.name for p in Dataset.from_study(synth).space.parameters)
    assert sum(row[1] for row in explanation.importances) == pytest.approx(1.0)
    assert set(explanation.most_important(3)) >= {"transfer_size"}


def test_explain_uses_a_stored_model(store, synth):
    from iotune.learn import train

    save_model(synth, train(synth, "forest", name="f", n_estimators=20))
    assert explain(synth, model="f").model == "f"
    save_model(synth, train(synth, "linear", name="lin"))
    with pytest.raises(LearningError, match="cart or forest"):
        explain(synth, model="lin")


@pytest.mark.parametrize("feature, parameter", [("log2(transfer_size)", "transfer_size"), ("cb_nodes", "cb_nodes"),
                                                ("romio_cb_write=enable", "romio_cb_write"), ("x:active", "x")])
def test_parameter_of(feature, parameter):
    assert parameter_of(feature) == parameter
