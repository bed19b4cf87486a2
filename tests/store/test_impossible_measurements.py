"""A runner's impossible figures (NaN, infinite, negative times) are its failure, said plainly (issue 13, item 10)."""

import math

import pytest

from iotune.records import Measurement, PhaseResult
from iotune.space import Space
from iotune.store import Store

SPACE = "name: x\nparameters:\n  - {name: a, type: integer, levels: [1], role: system, layer: mpiio}\n"


@pytest.mark.parametrize("seconds", [math.nan, math.inf, -1.0])
def test_an_impossible_time_is_stored_as_a_failed_trial_that_says_why(tmp_path, seconds):
    space = Space.from_text(SPACE)
    configuration = space.configuration({})
    with Store(tmp_path / "s.db") as store:
        study = store.create_study("x", space.to_yaml(), space.hash, {})
        trial = store.start_trial(study.id, configuration.to_dict(), configuration.key, configuration.workload_key, 0)
        store.finish_trial(trial, Measurement("COMPLETE", [PhaseResult("write", 1 << 20, seconds, 0, seconds, 0, 1)]))
        (stored,) = store.trials(study="x")
    assert stored.state == "FAILED" and stored.phases == []
    assert f"write seconds = {seconds!r}, not a finite number >= 0" in stored.error
    assert "constraint" not in stored.error


@pytest.mark.parametrize(("phase", "said"), [
    (PhaseResult("write", 1 << 20, 0.0, 0, 0, 0, 1), "write seconds = 0.0, no time"),
    (PhaseResult("write", 10**40, 1.0, 0, 1.0, 0, 1), "more than a 64-bit integer holds"),
], ids=["zero-seconds", "40-digit-bytes"])
def test_a_zero_time_or_an_overflowing_count_is_a_failed_trial_not_a_broken_store(tmp_path, phase, said):
    """Before: 0 s went in and broke `results` (ZeroDivisionError); 10**40 bytes raised OverflowError in the
    commit and left the trial RUNNING."""
    space = Space.from_text(SPACE)
    configuration = space.configuration({})
    with Store(tmp_path / "s.db") as store:
        study = store.create_study("x", space.to_yaml(), space.hash, {})
        trial = store.start_trial(study.id, configuration.to_dict(), configuration.key, configuration.workload_key, 0)
        store.finish_trial(trial, Measurement("COMPLETE", [phase]))
        (stored,) = store.trials(study="x")
    assert stored.state == "FAILED" and said in stored.error
