"""The replay's prior share: each (target, seed) sees the target and a random share of the other workloads."""

import math

import numpy as np
from benchmarks.replay import _with_prior_share
from benchmarks.replay_tables import TABLES

from iotune.transfer import load_table


def test_the_target_stays_and_a_share_of_the_others_is_drawn_per_seed():
    table = load_table(TABLES["scout"]())
    target = 3
    seen, where = _with_prior_share(table, target, 0.7, seed=0, base="scout")
    assert seen.workloads[where] == table.workloads[target]
    assert len(seen.workloads) == 1 + math.ceil(0.7 * (len(table.workloads) - 1))
    for name in table.values:
        np.testing.assert_array_equal(seen.values[name][where], table.values[name][target])
    np.testing.assert_array_equal(seen.workload_features[where], table.workload_features[target])
    again, _ = _with_prior_share(table, target, 0.7, seed=0, base="scout")
    other, _ = _with_prior_share(table, target, 0.7, seed=1, base="scout")
    assert again.workloads == seen.workloads != other.workloads


def test_the_whole_prior_is_the_table_itself():
    table = load_table(TABLES["cherrypick"]())
    assert _with_prior_share(table, 2, 1.0, seed=4, base="cherrypick") == (table, 2)
    small, _ = _with_prior_share(table, 2, 0.1, seed=4, base="cherrypick")
    assert len(small.workloads) == 3  # never fewer than two other workloads
