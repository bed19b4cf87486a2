"""Per-configuration spread and Sarle's bimodality coefficient, on simulated samples (seeded)."""

import numpy as np
import pytest

from iotune.variability import bimodality_coefficient, describe, is_bimodal
from iotune.variability.errors import VariabilityError


def test_normal_sample_is_unimodal():
    x = np.random.default_rng(1).normal(10.0, 1.0, 200)
    assert bimodality_coefficient(x) == pytest.approx(1 / 3, abs=0.08)
    assert not is_bimodal(x)


def test_two_separated_modes_are_bimodal():
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.normal(5.0, 0.3, 100), rng.normal(9.0, 0.3, 100)])
    assert bimodality_coefficient(x) > 0.8
    assert is_bimodal(x)


def test_degenerate_samples_are_not_flagged():
    assert np.isnan(bimodality_coefficient([1.0, 2.0, 3.0]))
    assert np.isnan(bimodality_coefficient([4.0] * 10))
    assert not is_bimodal([4.0] * 10)


def test_describe_summarises_runs_in_seconds():
    s = describe([1.0, 2.0, 3.0, 4.0, 5.0])
    assert (s.n, s.mean, s.q50) == (5, 3.0, 3.0)
    assert s.std == pytest.approx(np.std([1, 2, 3, 4, 5], ddof=1))
    assert s.cv == pytest.approx(s.std / 3.0)
    assert s.q05 < s.q25 < s.q50 < s.q75 < s.q95
    one = describe([2.0])
    assert one.std == 0.0 and np.isnan(one.bimodality)
    with pytest.raises(VariabilityError):
        describe([])


def test_bimodality_coefficient_matches_scipys_bias_corrected_moments():
    from scipy.stats import kurtosis, skew

    rng = np.random.default_rng(3)
    for x in (rng.normal(size=7), rng.exponential(size=40), np.r_[rng.normal(0, 1, 20), rng.normal(6, 1, 20)]):
        g, k, n = skew(x, bias=False), kurtosis(x, fisher=True, bias=False), x.size
        expected = (g * g + 1.0) / (k + 3.0 * (n - 1) ** 2 / ((n - 2) * (n - 3)))
        assert bimodality_coefficient(x) == pytest.approx(expected, rel=1e-9)
