"""Paper 002, Sec. III-A: the adaptive cache controller, simulated against the static policies."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iotune.analytic.cache_model import completion_time
from iotune.analytic.cache_sim import (
    DETACHED,
    FLUSHING,
    WRITEBACK,
    ElasticConfig,
    Trace,
    checkpoint_trace,
    cm1_trace,
    compare_policies,
    lammps_trace,
    simulate,
)
from iotune.analytic.errors import ModelError


@pytest.fixture(scope="module", params=["CM1", "LAMMPS"])
def paper_run(request):
    trace = cm1_trace() if request.param == "CM1" else lammps_trace()
    return request.param, trace, compare_policies(trace, dt=0.2)


def test_adaptive_is_nearly_as_fast_as_static_fast_and_as_cheap_as_static_slow(paper_run):
    _, _, runs = paper_run
    slow, fast, adaptive = runs["static-slow"], runs["static-fast"], runs["adaptive"]
    assert slow.completion_s > 1.15 * fast.completion_s
    assert adaptive.completion_s <= 1.15 * fast.completion_s
    assert adaptive.cost_agbs < 0.5 * fast.cost_agbs
    assert adaptive.cost_agbs <= 1.15 * slow.cost_agbs


def test_static_runs_agree_with_the_analytic_completion_time(paper_run):
    app, trace, runs = paper_run
    compute, si, sc = (1100.0, 5.0, 4.0) if app == "CM1" else (1380.0, 4.0, 3.0)
    for policy, b in (("static-slow", 33.0), ("static-fast", 128.0)):
        expected = completion_time(compute, 3, sc, b) + si * 1024 / b
        assert runs[policy].completion_s == pytest.approx(expected, abs=5 * 0.2)
        assert runs[policy].cost_agbs == pytest.approx(b * 50 * runs[policy].completion_s, rel=1e-9)


def test_cache_is_sized_from_past_bursts(paper_run):
    app, _, runs = paper_run
    sizes = runs["adaptive"].cache_sizes_gb
    checkpoint_gb = 4.0 if app == "CM1" else 3.0
    assert len(sizes) == 4  # initial dump + 3 checkpoints
    assert sizes[0] == 10.0
    assert all(s <= checkpoint_gb + 1 for s in sizes[1:])


def test_cache_grows_by_what_was_evicted():
    small = ElasticConfig(initial_cache_gb=1.0)
    run = simulate(checkpoint_trace(300.0, 3, 1, 0.0, 4.0), small, dt=0.2)
    assert run.cache_sizes_gb[0] == 1.0
    assert run.cache_sizes_gb[1] > 1.0
    assert max(run.timeline.state) >= WRITEBACK


def test_timeline_shows_the_phases(paper_run):
    _, _, runs = paper_run
    tl = runs["adaptive"].timeline
    assert {DETACHED, WRITEBACK, FLUSHING} <= set(np.unique(tl.state))
    assert np.all(tl.cache_gb[tl.state == DETACHED] == 0)
    assert tl.io_mbps.max() > 128.0 * 0.99  # cache writes at full speed during a burst
    assert tl.t_s.size == tl.cost_agbs.size == tl.dirty_mb.size


def test_threshold_of_one_never_attaches():
    trace = checkpoint_trace(200.0, 2, 1, 1.0, 1.0)
    run = simulate(trace, ElasticConfig(utilisation_threshold=1.0), dt=0.5)
    slow = simulate(trace, ElasticConfig(), "static-slow", dt=0.5)
    assert run.cache_sizes_gb == ()
    assert run.completion_s == slow.completion_s and run.cost_agbs == pytest.approx(slow.cost_agbs)


traces = st.lists(
    st.tuples(st.floats(0.0, 60.0), st.one_of(st.just(0.0), st.floats(0.0, 3000.0))), min_size=1, max_size=5
).map(lambda segs: Trace([c for c, _ in segs], [w for _, w in segs]))
configs = st.builds(
    ElasticConfig,
    backing_mbps=st.floats(5.0, 200.0),
    cache_mbps=st.floats(5.0, 400.0),
    backing_gb=st.floats(0.0, 100.0),
    initial_cache_gb=st.floats(0.1, 4.0),
    utilisation_threshold=st.floats(0.01, 1.0),
    inactivity_delay_s=st.floats(0.0, 20.0),
    attach_delay_s=st.floats(0.0, 10.0),
    granularity_gb=st.sampled_from([0.25, 1.0]),
    app_mbps=st.one_of(st.none(), st.floats(5.0, 300.0)),
)


@settings(max_examples=80, deadline=None)
@given(traces, configs, st.sampled_from(["adaptive", "static-slow", "static-fast"]))
def test_no_dirty_byte_is_lost_and_cost_never_decreases(trace, config, policy):
    run = simulate(trace, config, policy, dt=0.5)
    tl = run.timeline
    scale = 1.0 + float(trace.write_mb.sum())
    # every byte accepted is on the backing device or dirty in the cache, at every step
    np.testing.assert_allclose(tl.written_mb, tl.backing_mb + tl.dirty_mb, rtol=0, atol=1e-9 * scale)
    # ... and all of it on the backing device at the end
    if tl.t_s.size:
        assert tl.dirty_mb[-1] == 0.0
        assert tl.written_mb[-1] == pytest.approx(float(trace.write_mb.sum()), abs=1e-6 * scale)
        assert tl.backing_mb[-1] == pytest.approx(tl.written_mb[-1], abs=1e-9 * scale)
    # never detached (nor charged for a cache) while dirty
    detached = tl.state == DETACHED
    assert np.all(tl.dirty_mb[detached] == 0.0)
    assert np.all(tl.cache_gb[detached] == 0.0)
    attached = ~detached
    assert np.all(tl.dirty_mb[attached] <= tl.cache_gb[attached] * 1024 * (1 + 1e-12))
    assert np.all(np.diff(tl.cost_agbs) >= 0) and np.all(tl.cost_agbs >= 0)
    assert run.end_s >= run.completion_s
    assert run.cost_agbs == (tl.cost_agbs[-1] if tl.t_s.size else 0.0)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: ElasticConfig(utilisation_threshold=0.0), "UT"),
        (lambda: ElasticConfig(utilisation_threshold=1.5), "UT"),
        (lambda: ElasticConfig(backing_mbps=-33.0), "backing_mbps"),
        (lambda: ElasticConfig(cache_mbps=0.0), "cache_mbps"),
        (lambda: ElasticConfig(initial_cache_gb=-1.0), "initial_cache_gb"),
        (lambda: ElasticConfig(inactivity_delay_s=-1.0), "ID"),
        (lambda: Trace([1.0], [-5.0]), "write_mb"),
        (lambda: Trace([1.0, 2.0], [5.0]), "as many"),
        (lambda: checkpoint_trace(100.0, 10, 0, 1.0, 1.0), "every"),
        (lambda: simulate(cm1_trace(), dt=0.0), "dt"),
        (lambda: simulate(cm1_trace(), policy="static-medium"), "policy"),
    ],
)
def test_bad_parameters_raise_one_line_model_errors(make, match):
    with pytest.raises(ModelError, match=match) as info:
        make()
    assert "\n" not in str(info.value)
