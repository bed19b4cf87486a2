"""TransferTuner: random suggest/observe sequences never break it, picks are measured, transfer pays off."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iotune.transfer import Prior, TransferError, TransferTuner


def grid(size=6):
    """Candidates on a size x size grid of two numeric features."""
    x, y = np.meshgrid(np.arange(size, dtype=float), np.arange(size, dtype=float))
    return np.column_stack([x.ravel(), y.ravel()])


def bowl(candidates, centre, scale=1.0):
    """Positive values, lowest at ``centre``: 1 + scaled squared distance."""
    return 1.0 + scale * ((candidates - np.asarray(centre, dtype=float)) ** 2).sum(axis=1)


def synthetic_prior(candidates, centres, rng, noise=0.0, fail_share=0.0, subset=1.0, features=True):
    """One prior workload per centre, each measured on a random ``subset`` share of the candidates."""
    rows, values, labels, failed, wfeatures = [], [], [], [], []
    for w, centre in enumerate(centres):
        keep = rng.random(len(candidates)) < subset
        keep[rng.integers(len(candidates))] = True
        truth = bowl(candidates, centre)
        for c in np.flatnonzero(keep):
            rows.append(candidates[c])
            values.append(truth[c] * math.exp(noise * rng.standard_normal()))
            labels.append(w)
            failed.append(rng.random() < fail_share)
            wfeatures.append(centre)
    if not rows:
        return Prior.empty(candidates.shape[1])
    return Prior(np.array(labels), np.array(rows), np.array(values), np.array(failed),
                 np.array(wfeatures) if features else None)


@st.composite
def scenarios(draw):
    """A candidate set, a prior (possibly empty) and a sequence of steps (observe, suggest n)."""
    size = draw(st.integers(1, 5))
    candidates = grid(size)
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    workloads = draw(st.integers(0, 4))
    centres = rng.uniform(0, size, (workloads, 2))
    prior = synthetic_prior(candidates, centres, rng, noise=draw(st.sampled_from([0.0, 0.05])),
                            fail_share=draw(st.sampled_from([0.0, 0.3, 1.0])), subset=draw(st.sampled_from([0.5, 1.0])))
    workload = rng.uniform(-1, size + 1, 2) if draw(st.booleans()) else None
    fail_share = draw(st.sampled_from([0.0, 0.3, 1.0]))
    steps = draw(st.lists(st.tuples(st.integers(1, 3), st.booleans(), st.booleans()), min_size=1, max_size=12))
    return candidates, prior, workload, fail_share, steps, draw(st.integers(0, 3))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_random_sequences_never_break_the_tuner(scenario):
    candidates, prior, workload, fail_share, steps, seed = scenario
    tuner = TransferTuner(candidates, prior if len(prior.values) else None, workload, seed=seed)
    truth = bowl(candidates, (1.0, 2.0))
    rng = np.random.default_rng(seed)
    observations = []
    for n, duplicate, fail in steps:
        suggestion = tuner.suggest(observations, n=n)
        failed = {c for c, v in observations if v is None or v == math.inf}
        assert len(suggestion) <= n and len(set(suggestion)) == len(suggestion)
        assert all(isinstance(c, int) and 0 <= c < len(candidates) for c in suggestion)
        assert not failed & set(suggestion), "a candidate seen failing was proposed again"
        for c in suggestion:
            bad = fail and rng.random() < fail_share
            observations.append((c, None if bad else truth[c] * (1 + 0.02 * rng.standard_normal())))
        if duplicate and observations:
            c, value = observations[int(rng.integers(len(observations)))]
            observations.append((c, value if value is None else value * 1.01))
        pick = tuner.best(observations)
        failed = {c for c, v in observations if v is None or v == math.inf}
        succeeded = {c for c, v in observations if v is not None and v != math.inf}
        if succeeded - failed:
            assert pick in succeeded - failed
        else:
            assert pick is None
        mean, std = tuner.predict(observations)
        assert mean.shape == std.shape == (len(candidates),)
        assert np.isfinite(mean).all() and np.isfinite(std).all() and (std >= 0).all()


def test_every_run_failing_is_answered_without_error():
    candidates = grid(3)
    tuner = TransferTuner(candidates, seed=1)
    observations = []
    while suggestion := tuner.suggest(observations, n=2):
        observations += [(c, None) for c in suggestion]
    assert len(observations) == len(candidates)
    assert tuner.best(observations) is None
    assert tuner.suggest(observations) == []


def test_one_candidate_and_an_empty_prior():
    tuner = TransferTuner(np.array([[4.0]]), Prior.empty(1))
    assert tuner.suggest([]) == [0]
    assert tuner.best([(0, 2.5)]) == 0


def test_same_seed_same_suggestions_and_batches_are_distinct():
    candidates = grid(6)
    rng = np.random.default_rng(3)
    prior = synthetic_prior(candidates, rng.uniform(0, 6, (5, 2)), rng, noise=0.05, subset=0.7)
    observations = [(7, 20.0), (30, None), (14, 9.0)]
    first = TransferTuner(candidates, prior, seed=5).suggest(observations, n=4)
    again = TransferTuner(candidates, prior, seed=5).suggest(observations, n=4)
    assert first == again
    assert len(set(first)) == 4 and 30 not in first


def test_a_contested_best_is_measured_again_when_nothing_else_promises():
    candidates = np.array([[0.0], [1.0], [2.0], [3.0]])
    observations = [(0, 1.00), (1, 1.01), (2, 5.0), (3, 6.0)]  # every candidate run; 0 and 1 within noise
    tuner = TransferTuner(candidates, noise=0.05)
    assert tuner.suggest(observations) in ([0], [1])
    separated = [(0, 1.0), (1, 2.0), (2, 5.0), (3, 6.0)]
    assert tuner.suggest(separated) == []


def test_a_workload_between_known_levels_is_interpolated():
    candidates = grid(5)
    rng = np.random.default_rng(0)
    prior = synthetic_prior(candidates, [(0.0, 0.0), (4.0, 4.0)], rng)
    tuner = TransferTuner(candidates, prior, workload=[2.0, 2.0])
    weights = tuner._similarity
    assert weights[0] == pytest.approx(weights[1])
    assert len(tuner.suggest([], n=3)) == 3


@pytest.mark.parametrize("observation, message", [
    ((99, 1.0), "candidate index"),
    ((0, float("nan")), "positive and finite"),
    ((0, -1.0), "positive and finite"),
    (("a", 1.0), "candidate index"),
    (3, "pair"),
])
def test_bad_observations_are_one_clear_error(observation, message):
    tuner = TransferTuner(grid(3))
    with pytest.raises(TransferError, match=message):
        tuner.suggest([observation])


def test_bad_candidates_and_priors_are_refused():
    with pytest.raises(TransferError, match="non-empty"):
        TransferTuner(np.zeros((0, 2)))
    with pytest.raises(TransferError, match="features"):
        TransferTuner(grid(3), Prior.empty(3))
    with pytest.raises(TransferError, match="positive"):
        Prior([0], [[1.0, 2.0]], [-3.0], [False])
    with pytest.raises(TransferError, match="n must be"):
        TransferTuner(grid(3)).suggest([], n=0)


def test_transfer_beats_random_sampling_at_three_runs():
    """Workloads come in four kinds, each kind with its own best configuration; a left-out workload is
    found within 5 % of its optimum in three runs by the tuner far more often than by three random runs."""
    candidates = grid(8)
    kinds = np.array([[1.0, 1.0], [6.0, 2.0], [2.0, 6.0], [5.0, 5.0]])
    rng = np.random.default_rng(11)
    workloads = [(kind, rng.uniform(0.5, 2.0)) for kind in range(4) for _ in range(3)]
    truths = [scale * bowl(candidates, kinds[kind]) for kind, scale in workloads]
    features = np.array([kinds[kind] + rng.normal(0, 0.3, 2) for kind, _ in workloads])
    transfer, random = [], []
    for target in range(len(workloads)):
        for seed in range(3):
            draw = np.random.default_rng([seed, target])
            rows, values, labels = [], [], []
            for w, truth in enumerate(truths):
                if w != target:
                    rows.append(candidates)
                    values.append(truth * np.exp(0.02 * draw.standard_normal(len(truth))))
                    labels += [w] * len(truth)
            prior = Prior(np.array(labels), np.vstack(rows), np.concatenate(values),
                          np.zeros(len(labels), dtype=bool), np.repeat(np.delete(features, target, axis=0), 64, axis=0))
            truth = truths[target]
            tuner = TransferTuner(candidates, prior, workload=features[target], seed=seed)
            observations = []
            for _ in range(3):
                c = tuner.suggest(observations)[0]
                observations.append((c, truth[c] * math.exp(0.02 * draw.standard_normal())))
            transfer.append(truth[tuner.best(observations)] <= 1.05 * truth.min())
            random.append(truth[draw.choice(len(truth), 3, replace=False)].min() <= 1.05 * truth.min())
    # 0.97 with the two-run warm start before issue 31; with one warm run and the covariance model 0.83 here (four
    # well-separated kinds favour a second guess from the portfolio); as much or more at k = 3 on every replay table
    assert np.mean(transfer) >= 0.8
    assert np.mean(transfer) >= np.mean(random) + 0.5
