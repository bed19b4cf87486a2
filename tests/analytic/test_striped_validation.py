"""The striping ground truth as runs of the placement model, and the model validated on it leave-one-workload-out."""

import csv
from pathlib import Path

import numpy as np
import pytest

from iotune.analytic import ModelError
from iotune.analytic.striped_placement import StripedWrite
from iotune.analytic.striped_runs import StripedRun, ground_truth_runs
from iotune.analytic.striped_validation import leave_one_workload_out, split_half

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


def _rounds(means, repeats, spread, seed):
    rng = np.random.default_rng(seed)
    return [StripedRun("w", StripedWrite(1, MIB, 1, MIB, MIB * (i + 1)), m * (1 + spread * rng.standard_normal()),
                       repeat=r) for i, m in enumerate(means) for r in range(repeats)]


def test_split_half_is_high_for_layouts_far_apart_and_low_for_layouts_within_the_noise():
    apart = _rounds([1.0, 1.5, 2.0, 2.5, 3.0, 3.5], repeats=8, spread=0.02, seed=1)
    assert split_half(apart) == pytest.approx(1.0)
    together = _rounds([2.0] * 6, repeats=8, spread=0.2, seed=1)
    assert abs(split_half(together)) < 0.4
    assert np.isnan(split_half(apart[:1] + apart[8:9]))  # one repeat each: no halves
