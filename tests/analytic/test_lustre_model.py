"""LustreQueueModel against paper 004 Table III and tests/data/reference/lustre_queue.json."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iotune.analytic import LustreQueueModel, ModelError
from iotune.errors import IotuneError

GB = 1e9
# The reading that reproduces Table III (reference "reading_B_fitted"): mean inter-arrival
# 10 s, mean service 8 s, V = 0.5 Gbit/s = 62.5e6 bytes/s, so M/(nV) = 16 M[GB]/n s.
TABLE_III = LustreQueueModel(arrival_rate=0.1, service_rate=0.125, bandwidth=62.5e6)
# Table I's literal rates (reference "reading_A_TableI"); they do not reproduce Table III.
TABLE_I = LustreQueueModel(arrival_rate=1 / 13.47804, service_rate=1 / 4.453082, bandwidth=62.5e6)

# File size (GB), printed T_m, printed N_m, exact argmin, exact T at N_m (reference "rows_exact_Emax").
ROWS = [
    (1, "48", 1, 1, 48.0),
    (10, "117.312", 4, 5, 114.410667),
    (50, "181.9326", 20, 20, 174.983844),
    (100, "210.1419", 40, 40, 202.21598),
    (500, "274.9212", 199, 200, 266.196501),
    (1000, "302.6972", 399, 400, 293.871696),
]


@pytest.mark.parametrize("size_gb, printed, n_m, _n_exact, _t_exact", ROWS)
def test_paper_closed_form_reproduces_table_iii_t_m_to_printed_digits(size_gb, printed, n_m, _n_exact, _t_exact):
    decimals = len(printed.partition(".")[2])
    t_m = TABLE_III.completion_time(size_gb * GB, n_m, exact=False)
    assert abs(t_m - float(printed)) <= 0.5 * 10.0**-decimals


@pytest.mark.parametrize("size_gb, _printed, n_m, n_exact, t_exact", ROWS)
def test_optimal_stripe_counts_paper_and_exact(size_gb, _printed, n_m, n_exact, t_exact):
    assert TABLE_III.optimal_stripe_count(size_gb * GB, 5000, exact=False) == n_m
    assert TABLE_III.optimal_stripe_count(size_gb * GB, 5000) == n_exact
    assert TABLE_III.completion_time(size_gb * GB, n_m) == pytest.approx(t_exact, abs=1e-6)


def test_closed_form_equals_exact_for_one_and_two_osts_only():
    n = np.arange(1, 1001)
    exact = TABLE_III.expected_max_wait(n)
    paper = TABLE_III.expected_max_wait_paper(n)
    np.testing.assert_allclose(paper[:2], exact[:2], rtol=1e-14)
    np.testing.assert_allclose(exact[:2], [32.0, 51.2], rtol=1e-14)
    assert np.all(paper[2:] - exact[2:] > 1.0)
    # reference "closed_form_vs_exact_rho0.8_a0.025"
    assert TABLE_III.expected_max_wait(3) == pytest.approx(64.42666666666666, rel=1e-13)
    assert TABLE_III.expected_max_wait_paper(3) == pytest.approx(66.34666666666666, rel=1e-13)
    assert paper[-1] - exact[-1] == pytest.approx(8.88574205256839, rel=1e-9)


def _tail_integral(model, n, points=400_001):
    """int_0^inf 1 - F(t)^n dt by composite Simpson on a range where the tail is below 1e-17."""
    upper = (math.log(n * model.rho) + 40.0) / model.decay_rate
    t = np.linspace(0.0, upper, points)
    f = 1.0 - model.max_wait_cdf(t, n)
    h = t[1] - t[0]
    return h / 3.0 * (f[0] + f[-1] + 4.0 * f[1:-1:2].sum() + 2.0 * f[2:-1:2].sum())


@pytest.mark.parametrize("model", [TABLE_III, TABLE_I], ids=["table_iii", "table_i"])
@pytest.mark.parametrize("n", [1, 2, 3, 7, 50, 400])
def test_exact_expectation_matches_numerical_integration(model, n):
    assert model.expected_max_wait(n) == pytest.approx(_tail_integral(model, n), rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(rho=st.floats(0.01, 0.99), n=st.integers(1, 500))
def test_exact_expectation_bounds_and_paper_overestimate(rho, n):
    model = LustreQueueModel(arrival_rate=rho, service_rate=1.0, bandwidth=1.0)
    exact = model.expected_max_wait(n)
    # W is stochastically between 0 and Exp(a), so E[W] <= E[max] <= H_n / a.
    assert model.rho / model.decay_rate * (1 - 1e-12) <= exact
    assert exact <= sum(1.0 / j for j in range(1, n + 1)) / model.decay_rate * (1 + 1e-12)
    if n >= 2:
        assert exact > model.expected_max_wait(n - 1)
    if n >= 3:
        assert model.expected_max_wait_paper(n) > exact


def test_completion_time_broadcasts_and_reads_size_strings():
    n = np.array([1, 4, 20])
    times = TABLE_III.completion_time(50 * GB, n)
    assert times.shape == (3,)
    assert times[1] == TABLE_III.completion_time("50GB", 4)
    assert TABLE_III.completion_time(0, 1) == pytest.approx(32.0)


@pytest.mark.parametrize("n", [1, 3, 40])
def test_quantiles_are_monotone_and_invert_the_cdf(n):
    size = 10 * GB
    q = np.linspace(0.0, 1.0, 2001)
    times = TABLE_III.completion_time_quantile(size, n, q)
    assert np.all(np.diff(times) >= 0)
    assert times[-1] == math.inf
    write = size / (n * TABLE_III.bandwidth)
    atom = (1 - TABLE_III.rho) ** n
    assert np.all(times[q <= atom] == write)
    inner = (q > atom) & (q < 1)
    np.testing.assert_allclose(TABLE_III.max_wait_cdf(times[inner] - write, n), q[inner], rtol=1e-10)


def test_median_of_one_ost():
    # P(W <= t) = 1 - 0.8 exp(-t/40) = 0.5  ->  t = 40 ln 1.6
    assert TABLE_III.completion_time_quantile(0, 1, 0.5) == pytest.approx(40 * math.log(1.6))


@pytest.mark.parametrize(
    "arrival, service, bandwidth, word",
    [
        (0.125, 0.125, 1.0, "unstable"),
        (0.2, 0.125, 1.0, "unstable"),
        (0.0, 0.125, 1.0, "arrival_rate"),
        (-0.1, 0.125, 1.0, "arrival_rate"),
        (0.1, float("nan"), 1.0, "service_rate"),
        (0.1, 0.125, 0.0, "bandwidth"),
        (0.1, 0.125, float("inf"), "bandwidth"),
        (0.1, "fast", 1.0, "service_rate"),
        (True, 0.125, 1.0, "arrival_rate"),
    ],
)
def test_bad_parameters_give_one_line_model_errors(arrival, service, bandwidth, word):
    with pytest.raises(ModelError, match=word) as info:
        LustreQueueModel(arrival, service, bandwidth)
    assert isinstance(info.value, ValueError) and isinstance(info.value, IotuneError)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "call, word",
    [
        (lambda m: m.expected_max_wait(0), "n must be between 1"),
        (lambda m: m.expected_max_wait(-3), "n must be between 1"),
        (lambda m: m.expected_max_wait(2.5), "whole number"),
        (lambda m: m.expected_max_wait(True), "whole number"),
        (lambda m: m.completion_time(-1.0, 4), "M must be"),
        (lambda m: m.completion_time("lots", 4), "M: cannot read"),
        (lambda m: m.completion_time(GB, [1, 0]), "n must be between 1"),
        (lambda m: m.optimal_stripe_count(GB, 0), "n_max"),
        (lambda m: m.completion_time_quantile(GB, 2, 1.5), r"q must be in \[0, 1\]"),
        (lambda m: m.completion_time_quantile(GB, 2, float("nan")), r"q must be in \[0, 1\]"),
    ],
)
def test_bad_arguments_give_one_line_model_errors(call, word):
    with pytest.raises(ModelError, match=word) as info:
        call(TABLE_III)
    assert "\n" not in str(info.value)
