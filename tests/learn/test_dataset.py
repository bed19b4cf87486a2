"""Dataset.from_study on synthetic test data: shapes, targets (relative hand-checked), errors."""

from __future__ import annotations

import numpy as np
import pytest

from iotune.learn import Dataset, LearningError
from iotune.learn.dataset import data_hash
from iotune.stored import StoredStudy
from iotune.units import MIB
from tests.learn import synthetic


def test_shapes_and_time_target(store, synth):
    data = Dataset.from_study(synth)
    assert data.X.shape == (192, len(data.feature_names)) == (192, 8)
    assert data.y.shape == data.times.shape == data.groups.shape == data.config_keys.shape == (192,)
    assert len(data.configs) == 192 and data.n_workloads == 4 and data.dropped == 0
    truth = np.array([synthetic.true_time(c) for c in data.configs])
    assert np.allclose(data.y, truth, rtol=0.15)
    np.testing.assert_array_equal(data.y, data.times)
    assert data.data_hash == data_hash(data.X, data.y, data.space.hash) and len(data.data_hash) == 40


def test_phase_bandwidth_and_cost_targets(store, synth):
    time = Dataset.from_study(synth)
    write = Dataset.from_study(synth, phase="write")
    np.testing.assert_allclose(write.y, 0.6 * time.y)
    bandwidth = Dataset.from_study(synth, target="bandwidth")
    np.testing.assert_allclose(bandwidth.y, 2 * synthetic.BYTES / MIB / time.y)
    cost = Dataset.from_study(synth, target="cost", instances=4, price_per_hour=0.5)
    np.testing.assert_allclose(cost.y, time.y / 3600 * 4 * 0.5)
    assert bandwidth.data_hash != time.data_hash and not bandwidth.lower_is_better and cost.lower_is_better


def test_relative_target_by_hand(store, synth):
    data = Dataset.from_study(synth, target="relative")
    trials = store.trials("synth", state="COMPLETE")
    first = trials[0]
    defaults = [t for t in trials if t.workload_key == first.workload_key
                and all(t.config[p.name] == p.default for p in data.space.system_parameters)]
    assert len(defaults) == 2
    baseline = np.mean([sum(p.seconds for p in t.phases) for t in defaults])
    expected = baseline / sum(p.seconds for p in first.phases)
    assert data.y[0] == pytest.approx(expected)
    assert data.y[list(data.config_keys).index(defaults[0].config_key)] == pytest.approx(
        baseline / sum(p.seconds for p in defaults[0].phases))


def test_relative_drops_workloads_without_baseline(tmp_path):
    from iotune.store import Store
    from iotune.stored import StoredStudy

    with Store(tmp_path / "s.db") as store:
        skipped = synthetic.space().configuration({"transfer_size": "64KiB", "pattern": "strided"}).workload_key
        synthetic.build_study(store, repeats=1, skip_default_of=skipped)
        data = Dataset.from_study(StoredStudy.open(store, "synth"), target="relative")
        assert data.dropped == 23 and data.n_samples == 96 - 24 and skipped not in set(data.groups)


def test_errors_are_learning_errors(store, synth):
    with pytest.raises(LearningError, match="unknown target 'speed'"):
        Dataset.from_study(synth, target="speed")
    sp = synthetic.space()
    empty = StoredStudy(store, store.create_study("empty", sp.to_yaml(), sp.hash, {}))
    with pytest.raises(LearningError, match="no COMPLETE trials"):
        Dataset.from_study(empty)
    with pytest.raises(ValueError):
        Dataset.from_study(synth, phase="fsync")
