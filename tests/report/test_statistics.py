"""The report's own statistics against brute force and hand computation: random search, effects, folds, gains."""

import itertools
import math
import statistics

import numpy as np
import pytest
from scipy.stats import t as student_t

from iotune.report.models import configuration_folds, errors
from iotune.report.progress import random_best
from iotune.screening.significance import lenth_margin, main_effects, repeat_uncertainty


@pytest.mark.parametrize("better", ["lower", "higher"])
def test_expected_best_of_k_random_picks_is_exact(better):
    values = [3.0, 1.5, 7.0, 2.5, 2.5, 9.0, 4.0]
    pick = min if better == "lower" else max
    for k in range(1, len(values) + 1):
        outcomes = sorted((pick(c) for c in itertools.combinations(values, k)), reverse=better == "higher")
        expected, low, high = random_best(values, k, better)
        assert expected == pytest.approx(statistics.fmean(outcomes), rel=1e-12)
        # the 10 % and 90 % points of the outcomes, best first: at least that share is this good or better
        share = [sum(1 for o in outcomes if (o <= v if better == "lower" else o >= v)) / len(outcomes)
                 for v in (low, high)]
        assert share[0] >= 0.10 and share[1] >= 0.90
    assert random_best(values, len(values), better)[0] == pick(values)


def test_random_best_stays_finite_for_thousands_of_configurations():
    values = np.random.default_rng(0).lognormal(size=3000)
    expected, low, high = random_best(values, 40)
    assert values.min() <= low <= expected <= high and math.isfinite(expected)


def test_main_effect_is_mean_at_high_minus_mean_at_low():
    matrix = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]])
    responses = [10.0, 6.0, 4.0, 2.0]
    assert main_effects(matrix, responses).tolist() == [(10 + 6) / 2 - (4 + 2) / 2, (10 + 4) / 2 - (6 + 2) / 2]


def test_repeat_uncertainty_of_a_two_run_design():
    """Effect = y_a - y_b of two means of n runs: half-width t_{0.975, 2(n-1)} s sqrt(2/n) with s pooled."""
    runs = {"a": [1.0, 1.2, 1.1, 0.9], "b": [2.0, 2.4, 2.2, 2.6]}
    found = repeat_uncertainty(np.array([[1], [-1]]), ["a", "b"], runs)
    pooled = (statistics.variance(runs["a"]) + statistics.variance(runs["b"])) / 2
    expected = student_t.ppf(0.975, 6) * math.sqrt(pooled * (1 / 4 + 1 / 4))
    assert found.half_widths[0] == pytest.approx(expected)
    assert repeat_uncertainty(np.array([[1], [-1]]), ["a", "b"], {"a": [1.0], "b": [2.0]}).half_widths is None


def test_rows_sharing_a_configuration_add_their_signs():
    """Two rows of one configuration with opposite signs cancel: that configuration adds no variance."""
    runs = {"a": [1.0, 2.0], "b": [5.0, 7.0]}
    one = repeat_uncertainty(np.array([[1], [-1], [1], [-1]]), ["a", "a", "b", "b"], runs)
    assert one.half_widths[0] == pytest.approx(0.0)


def test_lenth_margin_by_hand():
    # s0 = 1.5 * median |e| = 1.5; the effects below 2.5 s0 are the four 1s: PSE = 1.5
    assert lenth_margin([1.0, -1.0, 1.0, 1.0, 10.0]) == pytest.approx(student_t.ppf(0.975, 5 / 3) * 1.5)
    assert lenth_margin([1.0, 2.0, 3.0]) is None


def test_folds_keep_every_repeat_of_a_configuration_together():
    keys = np.array(["a", "b", "a", "c", "d", "b", "e", "a"])
    folds = configuration_folds(keys, 3, seed=4)
    for key in set(keys):
        assert len(set(folds[keys == key])) == 1
    assert sorted(np.bincount([folds[list(keys).index(k)] for k in sorted(set(keys))])) == [1, 2, 2]
    assert (configuration_folds(keys, 3, seed=4) == folds).all()


def test_errors_and_r2():
    found = errors([1.0, 2.0, 3.0, 4.0], [1.5, 2.0, 2.5, 4.0])
    assert found["mae"] == pytest.approx(0.25) and found["rmse"] == pytest.approx(math.sqrt(0.125))
    assert found["r2"] == pytest.approx(1 - 0.5 / 5.0)
    assert found["median_relative_error_pct"] == pytest.approx(np.median([50, 0, 100 / 6, 0]))
