"""TransferTuner's known price (cost = time x price), failures imputed as slow, and deterministic re-runs."""

import math

import numpy as np
import pytest

from iotune.transfer import Prior, TransferError, TransferTuner


def line(n=8):
    return np.arange(n, dtype=float).reshape(-1, 1)


def test_the_price_is_added_back_exactly_and_best_is_by_value():
    candidates = line(4)
    price = np.array([1.0, 2.0, 4.0, 8.0])
    times = np.array([4.0, 1.5, 1.0, 0.9])  # fastest at 3, cheapest at 1 (cost 3.0)
    observations = [(c, times[c] * price[c]) for c in range(4)]
    tuner = TransferTuner(candidates, price=price, noise=0.01)
    assert tuner.best(observations) == 1
    mean, _ = tuner.predict(observations)
    assert mean == pytest.approx(np.log(times * price), abs=0.05)


def test_a_prior_in_cost_is_divided_by_its_price_through_a_function():
    candidates = line(5)
    price_of = lambda rows: 1.0 + np.asarray(rows)[:, 0]  # noqa: E731
    time = np.array([[5.0, 3.0, 2.0, 1.5, 1.2], [6.0, 3.5, 2.5, 1.6, 1.3]])
    labels = np.repeat([0, 1], 5)
    rows = np.vstack([candidates, candidates])
    cost = (time * price_of(candidates)).ravel()
    prior = Prior(labels, rows, cost, np.zeros(10, dtype=bool))
    tuner = TransferTuner(candidates, prior, price=price_of)
    assert tuner.prior.level == pytest.approx(np.log(time))
    best_cost = int(np.argmin((time * price_of(candidates)).mean(axis=0)))
    assert best_cost == 0
    # ranked by cost, the warm start would begin at the other workloads' cost optimum (0)
    assert TransferTuner(candidates, prior, price=price_of, warm_price=1.0).suggest([]) == [best_cost]


def test_the_warm_start_under_a_price_is_the_other_workloads_time_winner_then_the_price_steers():
    candidates = line(5)
    price_of = lambda rows: 1.0 + np.asarray(rows)[:, 0]  # noqa: E731
    time = np.array([[5.0, 3.0, 2.0, 1.5, 1.2], [6.0, 3.5, 2.5, 1.6, 1.3]])
    prior = Prior(np.repeat([0, 1], 5), np.vstack([candidates, candidates]),
                  (time * price_of(candidates)).ravel(), np.zeros(10, dtype=bool))
    tuner = TransferTuner(candidates, prior, price=price_of, warm_start=1, noise=0.01)
    # the other workloads' time winner (4) locates the target's region; their cost winners are isolated points
    assert tuner.suggest([]) == [4]
    # the target scales like them: after one run the model adds the known price and goes to the cheap end
    target = np.array([5.5, 3.2, 2.2, 1.55, 1.25]) * price_of(candidates)
    assert tuner.suggest([(4, float(target[4]))]) == [0]


def test_the_warm_start_from_both_kinds_runs_the_time_winner_and_the_cost_winner():
    candidates = line(5)
    price_of = lambda rows: 1.0 + np.asarray(rows)[:, 0]  # noqa: E731
    time = np.array([[5.0, 3.0, 2.0, 1.5, 1.2], [6.0, 3.5, 2.5, 1.6, 1.3]])
    prior = Prior(np.repeat([0, 1], 5), np.vstack([candidates, candidates]),
                  (time * price_of(candidates)).ravel(), np.zeros(10, dtype=bool))
    target = np.array([5.5, 3.2, 2.2, 1.55, 1.25]) * price_of(candidates)
    runs = []
    for warm_price in (0.0, None):
        tuner = TransferTuner(candidates, prior, price=price_of, warm_price=warm_price, noise=0.01, warm_start=2)
        first = tuner.suggest([])[0]
        runs.append((first, tuner.suggest([(first, float(target[first]))])[0]))
    # time winners only: the fastest (4), then the next fastest (3); both kinds: the fastest, then the cheapest
    assert runs == [(4, 3), (4, 0)]


def test_bad_prices_are_one_clear_error():
    with pytest.raises(TransferError, match="positive"):
        TransferTuner(line(3), price=[1.0, 0.0, 2.0])
    with pytest.raises(TransferError, match="3 positive"):
        TransferTuner(line(3), price=[1.0, 2.0])
    with pytest.raises(TransferError, match="log=True"):
        TransferTuner(line(3), price=[1.0, 2.0, 3.0], log=False)
    prior = Prior([0, 0], [[0.0], [9.0]], [1.0, 2.0], [False, False])
    with pytest.raises(TransferError, match="not among the candidates"):
        TransferTuner(line(3), prior, price=[1.0, 2.0, 3.0])


def test_a_failure_makes_its_neighbours_look_slower():
    candidates = line(10)
    observations = [(0, 1.0), (9, 2.0), (5, 1.5), (1, None)]
    with_failures = TransferTuner(candidates, seed=0).predict(observations)[0]
    without = TransferTuner(candidates, seed=0, impute_failures=False).predict(observations)[0]
    assert with_failures[2] > without[2]
    assert with_failures[1] > without[1]


def test_identical_re_runs_end_the_re_measuring():
    candidates = line(3)
    contested = [(0, 1.0), (1, 1.01), (2, 5.0)]
    tuner = TransferTuner(candidates, noise=0.05)
    assert tuner.suggest(contested) in ([0], [1])
    deterministic = contested + [(0, 1.0)]
    assert tuner.suggest(deterministic) == []
    noisy = contested + [(0, 1.0 * math.exp(0.05))]
    assert tuner.suggest(noisy) in ([0], [1])


def test_under_a_price_runs_the_experts_got_wrong_shrink_a_trust_region_around_the_best_run():
    # two categories (one-hot) x five sizes; the second category costs a quarter per second
    rows = np.array([[1, 0, x] for x in range(5)] + [[0, 1, x] for x in range(5)], dtype=float)
    price = np.array([4.0] * 5 + [1.0] * 5)

    def times(slowdown):  # the second category `slowdown` times slower than the first
        return np.where(rows[:, 0] == 1, 1.0, slowdown) * 10.0 / (1.0 + rows[:, 2])

    prior = Prior(np.repeat(np.arange(3), 10), np.vstack([rows] * 3),
                  np.concatenate([times(s) * price for s in (1.5, 1.8, 1.6)]), np.zeros(30, dtype=bool))
    target = times(8.0) * price  # far slower on the cheap category than any other workload

    def engine(**options):  # two warm runs, the bound's slack of 2, no calibration (this scenario's defaults)
        return TransferTuner(rows, prior, warm_start=2, bound_slack=2.0, calibrate=False, **options)

    # the warm start (4, 3), then the experts' two cheapest guesses (9, 5), neither better than the best run (4)
    observations = [(c, float(target[c])) for c in (4, 3, 9, 5)]
    unit = rows[:, 2] / 4.0
    distance = np.sqrt((rows[:, 0] - rows[4, 0]) ** 2 * 2 + (unit - unit[4]) ** 2)  # one-hot: a change is one step
    inside = engine(price=price, noise=0.01).suggest(observations)[0]
    outside = engine(price=price, noise=0.01, trust_region=False).suggest(observations)[0]
    # two runs that did not improve: one step after the first, half a step after the second
    assert engine(price=price).trust_radius(observations) == 0.5
    assert distance[inside] <= 0.5
    assert distance[outside] > 0.5
    # runs asked for and not told yet (a batch's beliefs) inform the model but are no misses
    warm, believed = observations[:2], observations[2:]
    tuner = engine(price=price, noise=0.01)
    assert tuner.suggest(warm, pending=believed) == [outside]
    # without a price (a time objective) nothing is restricted
    assert engine(noise=0.01).suggest(observations) == \
        engine(noise=0.01, trust_region=False).suggest(observations)
    # trust_start: the region is one step wide from the warm start on (a variant, not the default)
    assert engine(price=price).trust_radius(warm) == math.inf
    assert engine(price=price, trust_start=1).trust_radius(warm) == 1.0
    assert engine(price=price, trust_start=1).trust_radius(observations) == 0.25
    with pytest.raises(TransferError, match="trust_start"):
        engine(price=price, trust_start=-1)



def test_trust_explore_holds_the_trust_region_when_the_prior_is_not_trusted():
    rows = np.array([[1, 0, x] for x in range(5)] + [[0, 1, x] for x in range(5)], dtype=float)
    price = np.array([4.0] * 5 + [1.0] * 5)

    def times(slowdown):
        return np.where(rows[:, 0] == 1, 1.0, slowdown) * 10.0 / (1.0 + rows[:, 2])

    prior = Prior(np.repeat(np.arange(3), 10), np.vstack([rows] * 3),
                  np.concatenate([times(s) * price for s in (1.5, 1.8, 1.6)]), np.zeros(30, dtype=bool))
    target = times(8.0) * price
    observations = [(c, float(target[c])) for c in (4, 3, 9)]  # the best run is 4; 9 (cheap) missed
    # canonical rows: a change of category is one step, a size its rank difference (a quarter per level)
    distance = np.sqrt((rows[:, 0] != rows[4, 0]) + ((rows[:, 2] - rows[4, 2]) / 4.0) ** 2)
    tuner = TransferTuner(rows, prior, price=price, noise=0.01, warm_start=2, bound_slack=2.0)
    assert tuner.regime(observations) == "explore" and tuner.trust_radius(observations) == 1.0
    assert distance[tuner.suggest(observations)[0]] > 1.0  # explore is not held by default
    held = TransferTuner(rows, prior, price=price, noise=0.01, warm_start=2, bound_slack=2.0,
                         trust_explore=True).suggest(observations)[0]
    assert distance[held] <= 1.0

def test_cost_experts_beside_time_experts_follow_a_target_whose_cost_is_shaped_like_the_others():
    n = 10
    candidates = line(n)
    price = np.array([1.0, 3.0, 1.5, 4.0, 1.2, 2.5, 5.0, 2.0, 6.0, 1.1])
    rng = np.random.default_rng(1)
    base = 10.0 / (1 + candidates[:, 0]) + 1.0
    time = np.array([base * s * rng.uniform(0.9, 1.1, n) for s in (1.0, 1.3, 0.8, 1.1)])
    prior = Prior(np.repeat(np.arange(4), n), np.vstack([candidates] * 4), (time * price).ravel(),
                  np.zeros(4 * n, dtype=bool))
    log_cost = np.log(base * price)
    # the target's cost is the others' cost flattened (half its log range): no stretch of their time fits it
    target = np.exp(0.5 * (log_cost - log_cost.mean()) + 1.0)
    runs = [(c, float(target[c])) for c in (0, 3, 6, 9)]
    rest = [c for c in range(n) if c not in (0, 3, 6, 9)]
    error = {}
    for experts in ("time", "both"):
        mean, _ = TransferTuner(candidates, prior, price=price, experts=experts, model_choice=False,
                                model="experts").predict(runs)
        error[experts] = np.abs(mean[rest] - np.log(target[rest])).mean()
    assert error["both"] < 0.5 * error["time"]
    with pytest.raises(TransferError, match="experts"):
        TransferTuner(candidates, prior, price=price, experts="cost")
