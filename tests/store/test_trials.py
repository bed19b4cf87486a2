"""The trial lifecycle: start, finish, reset, invalid, resume planning, reading back."""

from __future__ import annotations

import pytest
from store_helpers import PLATFORM, complete, config, phases, start, study

from iotune.errors import StoreError
from iotune.records import BenchmarkSpec, Measurement, PhaseResult


def test_trial_round_trip(store):
    platform = store.register_platform(PLATFORM)
    record = study(store)
    trial_id = start(store, record.id, 1, platform_id=platform)
    assert store.get_trial(trial_id).state == "RUNNING"
    store.finish_trial(trial_id, complete())
    trial = store.get_trial(trial_id)
    assert trial.state == "COMPLETE" and trial.error is None
    assert (trial.study, trial.study_id, trial.platform_id) == ("study", record.id, platform)
    assert trial.config == config(1)
    assert (trial.config_key, trial.workload_key, trial.repeat) == ("cfg0001", "wl0", 0)
    assert trial.phases == phases()
    assert trial.hints_requested == {"cb_nodes": "4", "romio_cb_write": "enable"}
    assert trial.hints_in_effect == {"cb_nodes": "2", "romio_cb_write": "enable"}
    assert (trial.read_cache_mode, trial.runner, trial.wall_seconds) == ("drop_caches", "builtin", 1.5)
    assert trial.command == "mpiexec -n 2 iotune-bench" and trial.extra == {"note": "test"}
    assert BenchmarkSpec.from_dict(trial.benchmark) == BenchmarkSpec(processes=2)
    assert trial.started_at <= trial.finished_at
    assert len(trial.uid) == 32 and trial.imported_from is None
    assert trial.measurement() == complete()


def test_failed_trial_keeps_error(store):
    record = study(store)
    trial_id = start(store, record.id, 0)
    store.finish_trial(trial_id, Measurement.failed("mpiexec exited with 1", runner="builtin"))
    trial = store.get_trial(trial_id)
    assert (trial.state, trial.error, trial.phases) == ("FAILED", "mpiexec exited with 1", [])


def test_start_resets_running_and_failed(store):
    record = study(store)
    first = start(store, record.id, 0)
    uid = store.get_trial(first).uid
    assert start(store, record.id, 0) == first
    partial = Measurement.failed("timeout", phases=[phases()[0]])
    store.finish_trial(first, partial)
    assert len(store.get_trial(first).phases) == 1
    again = start(store, record.id, 0)
    trial = store.get_trial(again)
    assert again == first
    assert (trial.state, trial.error, trial.phases, trial.finished_at) == ("RUNNING", None, [], None)
    assert trial.uid != uid


@pytest.mark.parametrize("state", ["COMPLETE", "INVALID"])
def test_finished_work_is_never_repeated(store, state):
    record = study(store)
    if state == "COMPLETE":
        store.finish_trial(start(store, record.id, 0), complete())
    else:
        store.mark_invalid(record.id, config(0), "cfg0000", "wl0", "stripe count exceeds OSTs")
    with pytest.raises(StoreError, match=f"already {state}"):
        start(store, record.id, 0)
    assert start(store, record.id, 0, repeat=1)


def test_finish_only_a_running_trial(store):
    record = study(store)
    trial_id = start(store, record.id, 0)
    store.finish_trial(trial_id, complete())
    with pytest.raises(StoreError, match="COMPLETE, not RUNNING"):
        store.finish_trial(trial_id, complete())
    with pytest.raises(StoreError, match="no trial"):
        store.finish_trial(999_999, complete())
    with pytest.raises(StoreError, match="Measurement"):
        store.finish_trial(trial_id, {"status": "COMPLETE"})


def test_finish_is_one_transaction(store):
    record = study(store)
    trial_id = start(store, record.id, 0)
    broken = complete()
    broken.phases.append(PhaseResult("read", None, 1.0, 0.0, 1.0, 0.0, 1))  # bytes NOT NULL
    with pytest.raises(StoreError):
        store.finish_trial(trial_id, broken)
    trial = store.get_trial(trial_id)
    assert (trial.state, trial.phases, trial.runner) == ("RUNNING", [], None)


def test_start_trial_checks_its_arguments(store):
    record = study(store)
    with pytest.raises(StoreError, match="no study"):
        store.start_trial(12345, {}, "k", "w", 0, None, None)
    with pytest.raises(StoreError, match="repeat"):
        store.start_trial(record.id, {}, "k", "w", -1, None, None)
    with pytest.raises(StoreError, match="JSON"):
        store.start_trial(record.id, {"x": object()}, "k", "w", 0, None, None)
    with pytest.raises(StoreError, match="platform"):
        store.start_trial(record.id, {}, "k", "w", 0, 4242, None)
    assert store.trial_states(record.id) == {}


def test_start_trial_accepts_a_benchmark_spec(store):
    record = study(store)
    trial_id = store.start_trial(record.id, {}, "k", "w", 0, None, BenchmarkSpec(collective=True))
    assert store.get_trial(trial_id).benchmark["collective"] is True


def test_mark_invalid(store):
    record = study(store)
    running = start(store, record.id, 0)
    assert store.mark_invalid(record.id, config(0), "cfg0000", "wl0", "needs striping") == running
    fresh = store.mark_invalid(record.id, config(5), "cfg0005", "wl0", "block < transfer")
    assert store.get_trial(fresh).error == "block < transfer"
    assert store.trial_states(record.id) == {("cfg0000", 0): "INVALID", ("cfg0005", 0): "INVALID"}
    store.finish_trial(start(store, record.id, 1), complete())
    with pytest.raises(StoreError, match="complete trials"):
        store.mark_invalid(record.id, config(1), "cfg0001", "wl0", "late")


def test_trial_states_and_running_trials(store):
    record, other = study(store, "a"), study(store, "b")
    done = start(store, record.id, 0)
    store.finish_trial(done, complete())
    failed = start(store, record.id, 0, repeat=1)
    store.finish_trial(failed, Measurement.failed("x"))
    left = [start(store, record.id, 1), start(store, record.id, 2)]
    start(store, other.id, 0)
    assert store.trial_states(record.id) == {
        ("cfg0000", 0): "COMPLETE",
        ("cfg0000", 1): "FAILED",
        ("cfg0001", 0): "RUNNING",
        ("cfg0002", 0): "RUNNING",
    }
    assert store.running_trials(record.id) == left
    assert store.running_trials("b") == [store.trials("b")[0].id]


def test_trials_filters(store):
    a, b = study(store, "a"), study(store, "b")
    store.finish_trial(start(store, a.id, 0), complete())
    store.finish_trial(start(store, a.id, 1), Measurement.failed("x"))
    start(store, b.id, 0)
    assert len(store.trials()) == 3
    assert [t.config_key for t in store.trials("a")] == ["cfg0000", "cfg0001"]
    assert [t.state for t in store.trials(a.id, state="FAILED")] == ["FAILED"]
    assert [t.study for t in store.trials(state="RUNNING")] == ["b"]
    assert store.trials("a", state="COMPLETE")[0].phases == phases()
    with pytest.raises(StoreError, match="no study"):
        store.trials("nope")
    with pytest.raises(StoreError, match="unknown trial state"):
        store.trials(state="DONE")
    with pytest.raises(StoreError, match="no trial"):
        store.get_trial(10_000)


def test_rows_one_per_phase_and_failed_once(store):
    record = study(store)
    store.register_platform(PLATFORM)
    for repeat in range(2):
        store.finish_trial(start(store, record.id, 0, repeat=repeat), complete(scale=repeat + 1))
    store.finish_trial(start(store, record.id, 1), Measurement.failed("disk full"))
    rows = store.rows("study")
    assert len(rows) == 5
    assert all(list(r) == list(rows[0]) for r in rows)
    measured = [r for r in rows if r["config_key"] == "cfg0000"]
    assert [(r["repeat"], r["phase"]) for r in measured] == [(0, "write"), (0, "read"), (1, "write"), (1, "read")]
    assert measured[2]["seconds"] == 1.0 and measured[2]["bandwidth_mib"] == pytest.approx(4.0)
    assert measured[0]["cfg.cb_nodes"] == 1 and measured[0]["cfg.collective"] is True
    assert measured[0]["cfg.layout"] is None and measured[0]["hint.cb_nodes"] == "2"
    assert measured[0]["open_seconds"] == 0.01 and measured[0]["ops"] == 16
    assert measured[0]["read_cache_mode"] == "drop_caches" and measured[0]["runner"] == "builtin"
    failed = [r for r in rows if r["config_key"] == "cfg0001"]
    assert len(failed) == 1
    assert (failed[0]["state"], failed[0]["phase"], failed[0]["error"]) == ("FAILED", None, "disk full")
    assert failed[0]["hint.cb_nodes"] is None and failed[0]["cfg.cb_nodes"] == 2
    assert store.rows() == rows
