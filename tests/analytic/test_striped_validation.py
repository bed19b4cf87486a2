"""The striping ground truth as runs of the placement model, and the model validated on it leave-one-workload-out."""

import csv
from pathlib import Path

import pytest

from iotune.analytic import ModelError
from iotune.analytic.striped_placement import StripedWrite
from iotune.analytic.striped_runs import ground_truth_runs
from iotune.analytic.striped_validation import leave_one_workload_out

TABLE = Path(__file__).resolve().parents[2] / "data" / "ground_truth" / "striping_ground_truth.csv"
MIB = 2**20


def _rows():
    with TABLE.open() as handle:
        return list(csv.DictReader(handle))


def test_the_ground_truth_rows_become_writes_with_the_layout_in_effect():
    runs = ground_truth_runs(_rows())
    assert len(runs) == 560 and len({r.workload for r in runs}) == 8
    fpp = next(r for r in runs if r.workload == "fpp-independent p=4" and r.write.stripe_count == 1)
    assert fpp.write == StripedWrite(4, 4 * MIB, 1, 4 * MIB, 32 * MIB)
    shared = next(r for r in runs if r.workload == "strided-collective p=2" and r.write.stripe_count == 3)
    assert (shared.write.files, shared.write.file_bytes, shared.write.object_size) == (1, 8 * MIB, 32 * MIB)


def test_a_row_without_its_layout_in_effect_is_one_error_line():
    rows = _rows()[:3]
    rows[1] = {**rows[1], "eff_stripe_unit": ""}
    with pytest.raises(ModelError, match="line 3: no eff_stripe_unit"):
        ground_truth_runs(rows)


@pytest.mark.slow
def test_leave_one_workload_out_finds_the_best_layout_and_covers_the_runs():
    # issue 33's "done when" on the striping ground truth; Spearman rho >= 0.8 is not reached (0.59 against a
    # ceiling of 0.58 for an exact model with these repeats: docs/benchmarks.md), so it is not asserted here
    held_out = leave_one_workload_out(ground_truth_runs(_rows()))
    assert len(held_out) == 8
    assert sum(h.best_rank <= 3 for h in held_out) == 8
    assert sum(h.inside for h in held_out) / sum(h.runs for h in held_out) >= 0.8
    assert all(h.predicted_best[0] == 3 for h in held_out)
