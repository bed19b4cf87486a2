"""The Lindley simulation against the exact model, Pollaczek-Khinchine, and paper 004's closed form."""

import numpy as np
import pytest

from iotune.analytic import (
    LustreQueueModel,
    ModelError,
    mean_and_stderr,
    simulate_completion_times,
    stationary_waits,
)

GB = 1e9
MODEL = LustreQueueModel(arrival_rate=0.1, service_rate=0.125, bandwidth=62.5e6)


@pytest.fixture(scope="module")
def runs():
    """Simulated completion times of a 10 GB write: n -> samples (a shared, seeded fixture)."""
    plan = {1: 10_000, 2: 10_000, 3: 60_000, 10: 10_000, 40: 4_000}
    return {n: simulate_completion_times(MODEL, 10 * GB, n, samples, seed=n) for n, samples in plan.items()}


@pytest.mark.parametrize("n", [1, 2, 3, 10, 40])
def test_simulated_mean_agrees_with_exact_expectation(runs, n):
    mean, stderr = mean_and_stderr(runs[n])
    assert abs(mean - MODEL.completion_time(10 * GB, n)) < 4 * stderr


@pytest.mark.parametrize("n", [3, 10, 40])
def test_simulation_rejects_the_paper_closed_form_for_three_or_more_osts(runs, n):
    mean, stderr = mean_and_stderr(runs[n])
    # expected separations: about 10, 11 and 10 standard errors
    assert MODEL.completion_time(10 * GB, n, exact=False) - mean > 5 * stderr


@pytest.mark.parametrize("n", [1, 3, 40])
@pytest.mark.parametrize("q", [0.1, 0.5, 0.9, 0.99])
def test_analytic_quantiles_match_simulated_fractions(runs, n, q):
    sample = runs[n]
    # The distribution has an atom (1 - rho)^n at "no OST busy", so P(T <= t_q) = max(q, atom).
    level = max(q, (1 - MODEL.rho) ** n)
    below = np.mean(sample <= MODEL.completion_time_quantile(10 * GB, n, q))
    assert abs(below - level) < 4 * np.sqrt(level * (1 - level) / sample.size)


def test_idle_probability_of_one_ost(runs):
    idle = np.mean(runs[1] == 10 * GB / MODEL.bandwidth)
    assert abs(idle - (1 - MODEL.rho)) < 4 * np.sqrt(idle * (1 - idle) / runs[1].size)


@pytest.mark.parametrize("service, second_moment", [("deterministic", 64.0), ("lognormal", 64.0 * np.e)])
def test_non_exponential_service_matches_pollaczek_khinchine(service, second_moment):
    # M/G/1 mean wait: lambda E[S^2] / (2 (1 - rho)); mean service 8 s, lognormal sigma = 1.
    waits = stationary_waits(MODEL, 30_000, seed=11, service=service).waits
    mean, stderr = mean_and_stderr(waits)
    assert abs(mean - MODEL.arrival_rate * second_moment / (2 * (1 - MODEL.rho))) < 4 * stderr


def test_deterministic_queues_never_wait():
    times = simulate_completion_times(MODEL, 10 * GB, 4, 100, arrival="deterministic", service="deterministic")
    np.testing.assert_array_equal(times, 10 * GB / (4 * MODEL.bandwidth))


def test_seed_makes_runs_reproducible():
    first = simulate_completion_times(MODEL, GB, 3, 500, seed=5)
    assert np.array_equal(first, simulate_completion_times(MODEL, GB, 3, 500, seed=5))
    assert not np.array_equal(first, simulate_completion_times(MODEL, GB, 3, 500, seed=6))


def test_request_count_reports_lanes_times_arrivals():
    sample = stationary_waits(MODEL, 10, burn_in=5, gap=3)
    assert sample.waits.shape == (10,) and sample.requests == 10 * 5


def test_mean_and_stderr():
    assert mean_and_stderr([1.0, 3.0]) == pytest.approx((2.0, 1.0))


@pytest.mark.parametrize(
    "call, word",
    [
        (lambda: simulate_completion_times(MODEL, GB, 2, 10, arrival="bursty"), "arrival must be one of"),
        (lambda: simulate_completion_times(MODEL, GB, 2, 10, service="pareto"), "service must be one of"),
        (lambda: simulate_completion_times(MODEL, GB, 0, 10), "n must be"),
        (lambda: simulate_completion_times(MODEL, -GB, 2, 10), "M must be"),
        (lambda: simulate_completion_times(MODEL, GB, 2, 0), "samples must be"),
        (lambda: simulate_completion_times("model", GB, 2, 10), "LustreQueueModel"),
        (lambda: stationary_waits(MODEL, 10, gap=0), "gap must be"),
        (lambda: stationary_waits(MODEL, 10, sigma=-1.0), "sigma must be"),
        (lambda: mean_and_stderr([1.0]), "at least 2"),
    ],
)
def test_bad_simulation_arguments_give_model_errors(call, word):
    with pytest.raises(ModelError, match=word) as info:
        call()
    assert "\n" not in str(info.value)
