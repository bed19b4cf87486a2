"""The encoding chosen per target by how well it predicts the prior's own runs (issue 31)."""

import numpy as np
import pytest

from iotune.transfer import TransferError, TransferTuner
from iotune.transfer.canonical import Canonical
from iotune.transfer.selection import READINGS, Reading, choose, determined
from tests.transfer.test_canonical import encode, prior_and_target, tune


def _effects(prior):
    values = np.log(prior.values)
    centred = values.copy()
    for label in set(prior.workloads.tolist()):
        mine = prior.workloads == label
        centred[mine] -= values[mine].mean()
    return prior.configurations, centred, prior.workloads


@pytest.mark.parametrize("features", [("ordinal", "log2"), ("onehot", "linear"), ("ordinal", "linear")])
def test_the_choice_and_its_scores_do_not_depend_on_the_encoding(features):
    candidates, prior, _ = prior_and_target(("onehot", "log2"))
    reading, scores = choose(np.vstack([candidates, prior.configurations]), *_effects(prior))
    assert set(scores) == set(READINGS) and reading.kind in READINGS
    other_candidates, other_prior, _ = prior_and_target(features)
    other, other_scores = choose(np.vstack([other_candidates, other_prior.configurations]), *_effects(other_prior))
    assert other.kind == reading.kind
    assert other_scores == pytest.approx(scores)
    assert np.allclose(other.transform(other_candidates), reading.transform(candidates))


@pytest.mark.parametrize("encoding", ["select", "ensemble"])
def test_the_engine_runs_the_same_under_every_encoding(encoding):
    runs = tune(("onehot", "log2"), encoding=encoding)
    assert len(set(runs)) == len(runs)
    for features in (("ordinal", "log2"), ("onehot", "linear"), ("ordinal", "linear")):
        assert tune(features, encoding=encoding) == runs


def test_a_feature_the_others_fix_is_dropped_by_core_and_its_rows_match_the_table_without_it():
    candidates, prior, _ = prior_and_target(("onehot", "log2"))
    rows = np.vstack([candidates, prior.configurations])
    # total vCPUs (cores per VM of the family x the count): determined by the family and the count
    cores = np.array([2.0, 4.0, 8.0])[rows[:, :3].argmax(axis=1)]
    with_total = np.hstack([rows, np.log2(cores * 2 ** rows[:, 3:4].ravel())[:, None]])
    canonical = Canonical(with_total, with_total, np.zeros(len(with_total)))
    assert determined(canonical, with_total) == [0, 1]
    plain = Canonical(rows, rows, np.zeros(len(rows)))
    assert np.allclose(Reading(canonical, "core", [0, 1]).transform(with_total), plain.transform(rows))


def test_small_categories_one_hot_and_effects_spaced():
    rows = np.array([[0.0], [1.0], [2.0]])
    canonical = Canonical(rows, rows, np.array([0.0, 0.1, 1.0]))
    few = Reading(canonical, "few").transform(rows)
    assert few.shape == (3, 3)
    assert np.allclose(np.linalg.norm(few[0] - few[1]), 1.0)
    assert Reading(canonical, "effect").transform(rows)[:, 0] == pytest.approx([0.0, 0.1, 1.0])
    assert Reading(canonical, "rank").transform(rows)[:, 0] == pytest.approx([0.0, 0.5, 1.0])


def test_without_enough_prior_the_ranks_are_kept_and_bad_names_are_refused():
    rows = encode([("c4", 2), ("m4", 4), ("r4", 8)])
    reading, scores = choose(rows, np.zeros((0, rows.shape[1])), np.zeros(0), np.zeros(0))
    assert reading.kind == "rank" and scores == {}
    with pytest.raises(TransferError, match="reading must be one of"):
        Reading(Canonical(rows), "spline")
    with pytest.raises(TransferError, match="encoding must be one of"):
        TransferTuner(rows, encoding="chosen")


def test_the_ensemble_reads_every_reading_and_the_choice_keeps_its_scores():
    candidates, prior, _ = prior_and_target(("onehot", "log2"))
    ensemble = TransferTuner(candidates, prior, encoding="ensemble")
    assert len(ensemble._ensemble) == len(READINGS)
    assert {row.shape[1] for row in ensemble._ensemble} == {2, 4}  # the family one-hot in ``few``: 3 + 1 columns
    chosen = TransferTuner(candidates, prior, encoding="select")
    assert set(chosen.reading_scores) == set(READINGS)
    assert chosen._canonical.kind == max(READINGS, key=lambda kind: (round(chosen.reading_scores[kind], 9),
                                                                     -READINGS.index(kind)))
