"""Intervals and "separated" from few runs: the noise comes from repeats or a stated prior, never one run."""


import numpy as np

from iotune.variability.confidence import (
    MIN_DOF,
    PRIOR_SPREAD,
    estimate_noise,
    mean_interval,
    ratio_interval,
    separated,
)


def test_without_any_repeat_the_conservative_prior_is_used_and_said():
    noise = estimate_noise([[0.0104], [0.0343]])
    assert noise.spread == PRIOR_SPREAD and noise.dof == MIN_DOF and noise.prior_only
    assert "conservative prior" in noise.source
    # the case: one run each, 3.3x apart, on a node where that is noise
    assert not separated([0.0104], [0.0343], noise, comparisons=2)
    gain = ratio_interval([0.0343], [0.0104], noise, comparisons=2)
    assert gain.low < 1 < gain.high and gain.runs == 1


def test_a_single_run_has_an_interval_as_wide_as_the_noise():
    interval = mean_interval([2.0], estimate_noise([[2.0]]))
    assert interval.runs == 1 and interval.high / interval.low > 2.5  # 95 % of ±50 % a run


def test_two_close_runs_cannot_make_a_confident_claim():
    noise = estimate_noise([[1.00, 1.001]])  # one degree of freedom: pooled with the prior for the rest
    assert noise.spread > 0.3 and "conservative prior" in noise.source
    assert not separated([1.0, 1.001], [1.5, 1.501], noise)


def test_repeats_of_this_workload_dominate_once_there_are_enough():
    rng = np.random.default_rng(0)
    own = [list(np.exp(rng.normal(0, 0.05, 6))) for _ in range(4)]  # 20 degrees of freedom at 5 %
    noise = estimate_noise(own, [("other", [1.0, 1.3])])
    assert 0.03 < noise.spread < 0.15 and "this workload" in noise.source


def test_the_store_speaks_for_its_noisiest_workload():
    quiet = [("quiet", [1.0, 1.01]) for _ in range(10)]
    noisy = [("noisy", [1.0, 1.5]) for _ in range(2)]
    assert estimate_noise([[2.0]], quiet + noisy).spread > 2 * estimate_noise([[2.0]], quiet).spread


def test_picking_the_lowest_of_many_widens_its_interval():
    noise = estimate_noise([], [("w", [1.0, 1.1, 0.95])])
    one, many = mean_interval([1.0], noise), mean_interval([1.0], noise, comparisons=20)
    assert many.high / many.low > one.high / one.low


def test_clear_differences_are_separated():
    noise = estimate_noise([[1.0, 1.02, 0.99], [3.0, 3.05, 2.96]])
    assert separated([1.0, 1.02, 0.99], [3.0, 3.05, 2.96], noise)
    assert not separated([3.0, 3.05, 2.96], [1.0, 1.02, 0.99], noise)
