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


LAYOUTS = TABLE.parent / "striping_layouts.csv"


def _layout_runs(tmp_path):
    """The striping-layouts table imported with the spec beside it, as `iotune import` does; runs by pattern."""
    from iotune.analytic.striped_study import study_runs
    from iotune.spec import load_spec
    from iotune.store import Store, exchange
    from iotune.stored import StoredStudy

    with Store(str(tmp_path / "layouts.db")) as store:
        exchange.import_file(store, LAYOUTS, spec=load_spec(LAYOUTS.with_suffix(".yaml")))
        study = StoredStudy.open(store, "striping-layouts")
        fpp = {t.workload_key: (t.config["file_per_process"], t.config["segment_count"])
               for t in study.trials(state="COMPLETE")}
        return [StripedRun(str(fpp[r.workload]), r.write, r.seconds, repeat=r.repeat) for r in study_runs(study)]


def test_the_layouts_table_imports_as_runs_over_servers_object_sizes_and_patterns(tmp_path):
    runs = _layout_runs(tmp_path)
    assert len(runs) == 1248 and len({r.workload for r in runs}) == 3 and {r.repeat for r in runs} == set(range(16))
    assert {r.write.servers for r in runs} == {2, 3}
    assert {r.write.object_size for r in runs} == {MIB, 4 * MIB, 32 * MIB}
    assert {r.write.files for r in runs} == {1, 2}  # the file-per-process pattern: 2 files of 8 MiB
    assert {r.write.files * r.write.file_bytes for r in runs} == {16 * MIB}


@pytest.mark.slow
def test_leave_one_pattern_out_on_the_layouts_table(tmp_path):
    # issue 33's "done when" on a truth whose rounds place objects anew (docs/benchmarks.md), 16 rounds: mean rho
    # 0.81 (an exact model 0.85), 4 of 6 groups >= 0.8; the measured best in the predicted top 3 in 5 of 6 (4th
    # among near-tied layouts in the sixth); the band covers 80.1 %
    from iotune.analytic.striped_fit import fit_striped
    from iotune.analytic.striped_validation import evaluate

    runs = _layout_runs(tmp_path)
    rhos, inside, top3 = [], 0, 0
    for pattern in sorted({r.workload for r in runs}):
        model = fit_striped([(r.write, r.seconds) for r in runs if r.workload != pattern], servers=3)
        assert 4.5e6 < model.bandwidth < 5.8e6  # the testbed's throttle: 5 MB/s per server
        for servers in (2, 3):
            test = [r for r in runs if r.workload == pattern and r.write.servers == servers]
            rho, rank, hits, _, _ = evaluate(model, test)
            top3 += rank <= 3
            rhos.append(rho)
            inside += hits
    assert inside / len(runs) >= 0.8 and top3 >= 5
    assert np.mean(rhos) >= 0.8
