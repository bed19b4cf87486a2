"""Repeat planner (paper 003, Section 6): interval coverage on simulated runs, runs needed, convergence, stopping.

Coverage: 400 simulated experiments of 30 runs each, seeded.  Normal runs: both
intervals within 5 points of 95 %.  Bimodal runs (two equal modes 4 sd apart):
the mean is still asymptotically normal, so coverage is near nominal too; only
a loose bound (>= 85 %) is asserted.
"""

import numpy as np
import pytest

from iotune.variability import (
    RepeatPlanner,
    bootstrap_interval,
    convergence,
    expected_convergence,
    runs_needed,
    runs_needed_for_cv,
    t_interval,
)
from iotune.variability.errors import VariabilityError

EXPERIMENTS, RUNS = 400, 30


def _coverage(draw, true_mean):
    rng = np.random.default_rng(7)
    hits_t = hits_b = 0
    for i in range(EXPERIMENTS):
        x = draw(rng)
        hits_t += t_interval(x, 0.95).contains(true_mean)
        hits_b += bootstrap_interval(x, 0.95, resamples=1000, seed=i).contains(true_mean)
    return hits_t / EXPERIMENTS, hits_b / EXPERIMENTS


def test_coverage_on_normal_runs():
    t_cov, b_cov = _coverage(lambda rng: rng.normal(10.0, 2.0, RUNS), 10.0)
    assert abs(t_cov - 0.95) <= 0.05
    assert abs(b_cov - 0.95) <= 0.05


def test_coverage_on_bimodal_runs_is_loosely_nominal():
    def draw(rng):
        return np.where(rng.random(RUNS) < 0.5, rng.normal(8.0, 0.5, RUNS), rng.normal(12.0, 0.5, RUNS))

    t_cov, b_cov = _coverage(draw, 10.0)
    assert t_cov >= 0.85 and b_cov >= 0.85


def test_runs_needed_is_monotone_in_the_target_width():
    widths = [0.2, 0.1, 0.05, 0.02, 0.01]
    needed = [runs_needed_for_cv(0.1, w, 0.95) for w in widths]
    assert needed == sorted(needed) and needed[0] < needed[-1]
    assert runs_needed_for_cv(0.1, 0.05, 0.99) > runs_needed_for_cv(0.1, 0.05, 0.90)


def test_runs_needed_is_the_smallest_sufficient_n():
    from scipy.stats import t

    n = runs_needed_for_cv(0.1, 0.05, 0.95)
    assert t.ppf(0.975, n - 1) * 0.1 / np.sqrt(n) <= 0.05 < t.ppf(0.975, n - 2) * 0.1 / np.sqrt(n - 1)


def test_zero_spread_needs_one_run_and_single_runs_are_errors():
    assert runs_needed([3.0, 3.0, 3.0]) == 1 and runs_needed_for_cv(0.0) == 1
    with pytest.raises(VariabilityError, match="at least 2 runs"):
        runs_needed([3.0])
    with pytest.raises(VariabilityError):
        t_interval([1.0, 2.0], confidence=1.5)
    with pytest.raises(VariabilityError):
        runs_needed_for_cv(0.1, rel_half_width=0.0)


def test_convergence_matches_the_papers_figure_10_reading():
    assert expected_convergence(24, 40) == pytest.approx(0.75, abs=0.03)
    assert expected_convergence(31, 40) == pytest.approx(0.90, abs=0.03)
    assert expected_convergence(36, 80) == pytest.approx(0.75, abs=0.03)
    assert expected_convergence(57, 80) == pytest.approx(0.90, abs=0.02)
    curve = convergence(np.random.default_rng(0).normal(10, 1, 40))
    assert curve[0].tolist() == [10.0, 0.0] and curve[-1].tolist() == [40.0, 1.0]


def test_plan_costs_and_stopping():
    planner = RepeatPlanner(rel_half_width=0.05, confidence=0.95, max_runs=20)
    x = np.random.default_rng(3).normal(10.0, 1.0, 5)
    plan = planner.plan(x)
    assert plan.runs_needed == runs_needed(x, 0.05, 0.95)
    assert plan.extra_seconds == pytest.approx(plan.extra_runs * x.mean())
    assert planner.cost_seconds(0.1, 2.0) == 2.0 * planner.runs_for_cv(0.1)
    assert not planner.should_stop([10.0]).stop
    assert planner.should_stop([10.0, 10.01, 9.99]).reason == "precision"
    assert planner.should_stop(np.random.default_rng(4).normal(10, 5, 20)).reason == "max_runs"
    assert planner.should_stop(x[:3], max_runs=100).reason in ("continue", "precision")
