"""The identification benchmark's counting: runs an order takes to reach the optimum, and a target's donors."""

import numpy as np
from benchmarks.replay_tables import TABLES
from benchmarks.transfer_identification import first_found, one_target

from iotune.transfer import load_table


def test_an_order_counts_every_available_run_until_a_found_one_failures_and_unknowns_last():
    values = np.array([3.0, 1.0, 2.0, np.nan, 0.5])
    available = np.array([True, True, True, True, False])
    found = np.array([True, False, False, False, False])
    assert first_found(values, available, found) == 3  # 1.0, 2.0, then 3.0; the unavailable 0.5 is never run
    assert first_found(values, available, np.array([False, False, False, True, False])) == 4  # NaN runs last
    assert first_found(values, available, np.zeros(5, dtype=bool)) == 5  # never: one more than the runs


def test_a_targets_best_donor_is_the_other_workload_whose_order_reaches_its_optimum_first():
    table = load_table(TABLES["cherrypick"]())
    target = table.workloads.index("spark")
    row = one_target(table, "cost", target, runs=3)
    truth = table.truth("cost")
    ran = table.available[target] & np.isfinite(truth[target])
    found = ran & (truth[target] <= 1.05 * truth[target][ran].min())
    ranks = {table.workloads[j]: first_found(truth[j], table.available[target], found)
             for j in range(len(table.workloads)) if j != target}
    assert row["best_donor_rank"] == min(ranks.values()) == ranks[row["best_donor"]]
    assert row["good_donors"] == sum(r <= max(min(ranks.values()), 5) for r in ranks.values())
    assert len(row["weight_on_good"]) == 3 and all(0.0 <= w <= 1.0 + 1e-12 for w in row["weight_on_good"])
