"""Property tests: whatever a runner reports comes back from the store (and through an export) unchanged."""

from __future__ import annotations

import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iotune.records import Measurement, PhaseResult

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
configs = st.dictionaries(st.text(min_size=1, max_size=12), values, max_size=6)
hints = st.dictionaries(st.text(min_size=1, max_size=12), st.text(max_size=12), max_size=4)
seconds = st.floats(min_value=0.0, max_value=1e6, allow_nan=False)
phase = st.builds(
    PhaseResult,
    phase=st.sampled_from(["write", "read"]),
    bytes=st.integers(min_value=0, max_value=2**62),
    seconds=st.floats(min_value=1e-9, max_value=1e6),  # a phase of 0 s is stored as the runner's failure
    open_seconds=seconds,
    transfer_seconds=seconds,
    close_seconds=seconds,
    ops=st.integers(min_value=0, max_value=2**40),
    verify_errors=st.none() | st.integers(min_value=0, max_value=1000),
)


@SETTINGS
@given(config=configs, phases=st.lists(phase, max_size=3), requested=hints, in_effect=hints)
def test_trial_values_round_trip(store, config, phases, requested, in_effect):
    study = store.get_study("p") or store.create_study("p", "", "h", {})
    key = uuid.uuid4().hex[:16]
    trial_id = store.start_trial(study.id, config, key, "w", 0, None, None)
    measurement = Measurement(
        "COMPLETE", phases, hints_requested=requested, hints_in_effect=in_effect, extra={"config": config}
    )
    store.finish_trial(trial_id, measurement)
    trial = store.get_trial(trial_id)
    assert trial.config == config
    assert trial.measurement() == measurement
