"""What the target's runs say about the prior: regime switches, the known-price bound, failures as evidence."""

import numpy as np

from iotune.transfer import Prior, TransferTuner, evidence


def line(n):
    return np.linspace(0.0, 1.0, n).reshape(-1, 1)


def prior_of(curves, candidates, failed=None):
    """A Prior with workload j measured at every candidate, taking curves[j]."""
    J, n = curves.shape
    labels = np.repeat(np.arange(J), n)
    rows = np.vstack([candidates] * J)
    failed = np.zeros(J * n, dtype=bool) if failed is None else failed.ravel()
    return Prior(labels, rows, curves.ravel(), failed)


def drive(tuner, truth, runs):
    observations, regimes = [], []
    for _ in range(runs):
        regimes.append(tuner.regime(observations))
        pick = tuner.suggest(observations)[0]
        observations.append((pick, truth(pick)))
    return observations, regimes


def test_a_prior_that_ranks_the_targets_runs_backwards_switches_to_exploring():
    candidates = line(20)
    x = candidates[:, 0]
    curves = np.array([np.exp(2.0 * x + 0.05 * j * np.sin(7 * x)) for j in range(5)])  # all: lowest x best
    target = np.exp(-2.0 * x)  # the target: highest x best
    tuner = TransferTuner(candidates, prior_of(curves, candidates), noise=0.01)
    observations, regimes = drive(tuner, lambda c: float(target[c]), 8)
    assert regimes[0] == "start" and regimes[1] != "start"  # one warm run, the default
    assert "explore" in regimes[:6]
    assert tuner.regime(observations) == "explore"
    # exploring on the target's own runs, the engine finds the far end the prior called worst
    assert target[tuner.best(observations)] <= target.min() * 1.2
    # a prior that is right stays in charge
    right = TransferTuner(candidates, prior_of(curves, candidates), noise=0.01)
    _, regimes = drive(right, lambda c: float(curves[0, c]), 8)
    assert "explore" not in regimes


def test_the_known_price_rules_out_a_candidate_that_would_have_to_be_faster_than_any_workload_ran():
    candidates = line(6)
    price = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 50.0])
    # every other workload: candidate 5 at most 2x faster than candidate 0 (time), but 50x the price
    times = np.array([[4.0, 3.0, 3.5, 3.8, 3.9, 2.0], [5.0, 4.0, 4.4, 4.7, 4.9, 2.6], [3.0, 2.5, 2.8, 2.9, 2.95, 1.6]])
    prior = prior_of(times * price, candidates)
    observations = [(0, 4.0), (1, 3.1)]
    tuner = TransferTuner(candidates, prior, price=price, noise=0.01)
    assert 5 in tuner.ruled_out(observations).tolist()
    assert 2 not in tuner.ruled_out(observations).tolist()
    unbounded = TransferTuner(candidates, prior, price=price, noise=0.01, bound_slack=None)
    assert unbounded.ruled_out(observations).tolist() == []
    # under time (no price) nothing is ruled out by a price
    assert TransferTuner(candidates, prior_of(times, candidates), noise=0.01).ruled_out(observations).tolist() == []


def test_time_bound_is_the_fastest_speed_up_any_workload_showed():
    level = np.log(np.array([[4.0, 2.0, 1.0], [4.0, 3.0, 2.0]]))
    failed = np.zeros_like(level, dtype=bool)
    bound = evidence.time_bound(level, failed, np.array([0]), np.log(np.array([8.0])), slack=1.0)
    assert np.allclose(np.exp(bound), [8.0, 4.0, 2.0])
    assert np.allclose(np.exp(evidence.time_bound(level, failed, np.array([0]), np.log([8.0]), slack=2.0)),
                       [4.0, 2.0, 1.0])


def test_failures_the_prior_did_not_expect_are_noticed_after_two():
    assert not evidence.failing_more(np.array([0.05, 0.05]), 1)
    assert evidence.failing_more(np.array([0.05, 0.05, 0.05]), 2)
    assert not evidence.failing_more(np.full(10, 0.2), 2)  # two in ten where the prior expected two


def test_a_tuning_that_failed_every_run_moves_away_from_the_failures():
    candidates = line(20)
    x = candidates[:, 0]
    curves = np.array([np.exp(1.0 * x + 0.1 * j * x**2) for j in range(4)])  # the prior: low x best, never fails
    tuner = TransferTuner(candidates, prior_of(curves, candidates), noise=0.01)
    fails_below = 0.5  # the target fails on the lower half

    def truth(c):
        return None if x[c] < fails_below else float(np.exp(-x[c]))

    observations, regimes = drive(tuner, truth, 4)
    assert observations[0][1] is None and observations[1][1] is None
    assert regimes[2] == "failing"
    assert x[observations[2][0]] >= fails_below  # the third run leaves the failing region at once
    assert tuner.best(observations) is not None


def test_a_larger_budget_keeps_exploring_every_other_run():
    candidates = line(30)
    x = candidates[:, 0]
    curves = np.array([np.exp(np.sin(3 * x) + 0.1 * j * x) for j in range(4)])
    truth = lambda c: float(curves[1, c] * 1.1)  # noqa: E731
    _, regimes = drive(TransferTuner(candidates, prior_of(curves, candidates), noise=0.01), truth, 14)
    assert "broad" not in regimes[:10] and regimes[11] == "broad" and regimes[13] == "broad"
    _, regimes = drive(TransferTuner(candidates, prior_of(curves, candidates), noise=0.01, explore_after=0),
                       truth, 14)
    assert "broad" not in regimes
