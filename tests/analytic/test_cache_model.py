"""Paper 002 (elastic block cache), Sec. III-B to III-D: T, C_a, calibration tables, cache-size selection.

Known answers are from tests/data/reference/elastic_cache.json.
"""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iotune.analytic.cache_model import (
    MB_PER_GB,
    CalibrationTable,
    CheckpointWorkload,
    DeadlineError,
    Prediction,
    best_cache_size,
    completion_time,
    predict_adaptive,
    predict_static,
    storage_cost,
    sweep_cache_sizes,
)
from iotune.analytic.errors import ModelError
from iotune.errors import IotuneError

# Paper 002, Sec. IV-E: I*It, S_i, S_c per VM (GB); Tables I/II: measured completion times (s).
APPS = {
    "CM1": {
        "compute_s": 1100.0,
        "initial_gb": 5.0,
        "checkpoint_gb": 4.0,
        "real": {"slow": 1471, "fast": 1190, "adaptive": 1231},
    },
    "LAMMPS": {
        "compute_s": 1380.0,
        "initial_gb": 4.0,
        "checkpoint_gb": 3.0,
        "real": {"slow": 1680, "fast": 1454, "adaptive": 1476},
    },
}
BANDWIDTH = {"slow": 33.0, "fast": 128.0}
# Table III as printed (estimated over real completion time).
TABLE_III = {
    ("CM1", "slow"): "1.0009270132",
    ("CM1", "fast"): "1.0050420168",
    ("CM1", "adaptive"): "1.0020838484",
    ("LAMMPS", "slow"): "0.9876623377",
    ("LAMMPS", "fast"): "0.9986244842",
    ("LAMMPS", "adaptive"): "1.0035736621",
}
# Table IV as printed (estimated over real C_a).
TABLE_IV = {
    ("CM1", "slow"): "1.0399457837",
    ("CM1", "fast"): "0.9888",
    ("LAMMPS", "slow"): "0.9613944238",
    ("LAMMPS", "fast"): "0.9605177994",
}


def workload(app):
    a = APPS[app]
    return CheckpointWorkload(32, a["compute_s"], 3, a["initial_gb"], a["checkpoint_gb"])


def digits(value, printed):
    """``value`` rounded to as many decimals as ``printed`` has."""
    return f"{value:.{len(printed.split('.')[1])}f}"


@pytest.mark.parametrize("app", APPS)
@pytest.mark.parametrize("disk", ["slow", "fast"])
def test_table_iii_static_ratios_reproduce_with_binary_gb(app, disk):
    a = APPS[app]
    t = completion_time(a["compute_s"], 3, a["checkpoint_gb"], BANDWIDTH[disk])
    printed = TABLE_III[(app, disk)]
    assert digits(t / a["real"][disk], printed) == printed


def test_table_iii_static_ratios_do_not_reproduce_with_decimal_gb():
    matches = []
    for app, a in APPS.items():
        for disk in ("slow", "fast"):
            t = completion_time(a["compute_s"], 3, a["checkpoint_gb"], BANDWIDTH[disk], mb_per_gb=1000)
            printed = TABLE_III[(app, disk)]
            matches.append(digits(t / a["real"][disk], printed) == printed)
    assert not any(matches)


@pytest.mark.parametrize(("app", "b_sc"), [("CM1", 92.0), ("LAMMPS", 91.0)])
def test_table_iii_adaptive_rows_imply_integer_throughput(app, b_sc):
    a = APPS[app]
    t = completion_time(a["compute_s"], 3, a["checkpoint_gb"], b_sc)
    printed = TABLE_III[(app, "adaptive")]
    assert digits(t / a["real"]["adaptive"], printed) == printed
    off_by_one = completion_time(a["compute_s"], 3, a["checkpoint_gb"], b_sc + 1)
    assert digits(off_by_one / a["real"]["adaptive"], printed) != printed


# Real C_a windows implied by the reference: n * B * N * t with t a multiple of 5 s (not printed in the paper).
IMPLIED_REAL_S = {("CM1", "slow"): 1565, ("CM1", "fast"): 1250, ("LAMMPS", "fast"): 1545}


@pytest.mark.parametrize(("app", "disk"), list(IMPLIED_REAL_S))
def test_table_iv_static_cost_ratios_reproduce_with_si_over_b(app, disk):
    b = BANDWIDTH[disk]
    predicted = predict_static(workload(app), b, 50.0)
    real = 32 * b * 50 * IMPLIED_REAL_S[(app, disk)]
    printed = TABLE_IV[(app, disk)]
    assert digits(predicted.cost_agbs / real, printed) == printed


def test_table_iv_lammps_static_slow_has_no_round_real_window():
    predicted = predict_static(workload("LAMMPS"), 33.0, 50.0)
    assert predicted.cost_agbs == pytest.approx(94163200.0, rel=1e-12)
    ratio = predicted.cost_agbs / (32 * 33 * 50 * 1855)
    assert f"{ratio:.10f}" == "0.9613983501" != TABLE_IV[("LAMMPS", "slow")]


def test_static_prediction_matches_reference_estimates():
    cm1 = predict_static(workload("CM1"), 128.0, 50.0)
    assert cm1.completion_s == 1196.0
    assert cm1.cost_agbs == 253132800.0
    assert cm1.cache_gb is None


def test_adaptive_cost_matches_reference_illustration():
    # Reference "example_illustrative_only": B(Si)=100, D(Si)=150, D(Sc)=120 MB/s / s, B(Sc)=92, M(Si)=10, M(Sc)=Sc+2.
    throughput = lambda x, m: {5.0: 100.0, 4.0: 92.0}[x]  # noqa: E731
    duration = lambda x, m: {5.0: 150.0, 4.0: 120.0}[x]  # noqa: E731
    p = predict_adaptive(
        workload("CM1"), 33.0, 50.0, 128.0, throughput, duration, initial_cache_gb=10.0, checkpoint_cache_gb=6.0
    )
    assert p.completion_s == pytest.approx(1233.5652173913043, rel=1e-14)
    assert p.cost_agbs == pytest.approx(82826963.47826086, rel=1e-12)
    assert p.cache_gb == 6.0


def test_storage_cost_is_backing_plus_integrated_cache():
    assert storage_cost(100.0, 33.0, 50.0) == 33 * 50 * 100
    assert storage_cost(100.0, 33.0, 50.0, 128.0, 6.0 * 40) == 33 * 50 * 100 + 128 * 240


# Paper's calibration grid (Sec. IV-E): datasets 3, 4, 6, 9 GB; caches 2..12 GB.
# The values are made up: Fig. 5 is not printed.
GRID_X = [3.0, 4.0, 6.0, 9.0]
GRID_M = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]


def synthetic_tables():
    x, m = np.meshgrid(GRID_X, GRID_M, indexing="ij")
    b = 40.0 + 60.0 * np.minimum(m / (x + 2.0), 1.0)
    d = 20.0 + 30.0 * x + 0.5 * m
    return CalibrationTable(GRID_X, GRID_M, b, quantity="B"), CalibrationTable(GRID_X, GRID_M, d, quantity="D")


def test_calibration_table_is_exact_on_grid_and_bilinear_between():
    b, _ = synthetic_tables()
    assert b(4.0, 6.0) == pytest.approx(100.0)
    assert b(3.0, 2.0) == pytest.approx(40.0 + 60.0 * 2.0 / 5.0)
    table = CalibrationTable([0.0, 2.0], [0.0, 4.0], [[10.0, 20.0], [30.0, 60.0]])
    # bilinear at (0.5, 1) of the unit square: 10*0.375 + 20*0.125 + 30*0.375 + 60*0.125
    assert table(1.0, 1.0) == pytest.approx(10 * 0.375 + 20 * 0.125 + 30 * 0.375 + 60 * 0.125)


def test_calibration_table_refuses_to_extrapolate_unless_asked():
    b, _ = synthetic_tables()
    with pytest.raises(ModelError, match=r"dataset size 10 GB is outside the calibrated range \[3, 9\] GB"):
        b(10.0, 6.0)
    with pytest.raises(ModelError, match="cache size 1 GB"):
        b(4.0, 1.0)
    table = CalibrationTable([1.0, 2.0], [1.0, 2.0], [[10.0, 10.0], [20.0, 20.0]], extrapolate=True)
    assert table(3.0, 5.0) == pytest.approx(30.0)
    with pytest.raises(ModelError, match="extrapolates to"):
        CalibrationTable([1.0, 2.0], [1.0, 2.0], [[20.0, 20.0], [10.0, 10.0]], extrapolate=True)(4.0, 1.0)


@pytest.mark.parametrize(
    ("x", "m", "values", "match"),
    [
        ([3.0], [2.0, 4.0], [[1.0, 2.0]], "at least 2"),
        ([4.0, 3.0], [2.0, 4.0], [[1.0, 2.0], [1.0, 2.0]], "strictly increasing"),
        ([3.0, 4.0], [2.0, 4.0], [[1.0, 2.0]], "shape"),
        ([3.0, 4.0], [2.0, 4.0], [[1.0, 2.0], [0.0, 2.0]], "> 0"),
        ([-1.0, 4.0], [2.0, 4.0], [[1.0, 2.0], [1.0, 2.0]], ">= 0"),
    ],
)
def test_bad_calibration_tables(x, m, values, match):
    with pytest.raises(ModelError, match=match):
        CalibrationTable(x, m, values)


def test_sweep_and_best_cache_size_on_the_paper_grid():
    b, d = synthetic_tables()
    sweep = sweep_cache_sizes(workload("CM1"), 33.0, 50.0, 128.0, b, d, GRID_M, initial_cache_gb=10.0)
    assert [p.cache_gb for p in sweep] == GRID_M
    times = [p.completion_s for p in sweep]
    assert times == sorted(times, reverse=True)  # a larger cache never slows the synthetic run down
    best = best_cache_size(sweep, deadline=1e9)
    assert best.cost_agbs == min(p.cost_agbs for p in sweep)
    tight = best_cache_size(sweep, deadline=times[2])
    assert tight.completion_s <= times[2]
    assert tight.cost_agbs == min(p.cost_agbs for p in sweep if p.completion_s <= times[2])


def test_deadline_no_cache_size_meets_names_the_fastest_time():
    candidates = [Prediction(1300.0, 5.0, 2.0), Prediction(1250.5, 7.0, 6.0), Prediction(1260.0, 6.0, 4.0)]
    with pytest.raises(DeadlineError) as info:
        best_cache_size(candidates, deadline=1200.0)
    err = info.value
    assert isinstance(err, ModelError) and isinstance(err, IotuneError) and isinstance(err, ValueError)
    assert "1250.5 s" in str(err) and "M(Sc) = 6 GB" in str(err) and "T_max = 1200 s" in str(err)
    assert "\n" not in str(err)
    assert err.fastest.cache_gb == 6.0


def test_deadline_error_survives_pickling():
    err = DeadlineError(1200.0, Prediction(1250.5, 7.0, 6.0))
    again = pickle.loads(pickle.dumps(err))
    assert str(again) == str(err) and again.fastest == err.fastest


def test_best_cache_size_breaks_ties_by_time_then_size():
    candidates = [Prediction(1210.0, 5.0, 6.0), Prediction(1200.0, 5.0, 8.0), Prediction(1200.0, 5.0, 4.0)]
    assert best_cache_size(candidates, 1300.0).cache_gb == 4.0


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(1.0, 1e4), st.floats(0.0, 1e9), st.floats(0.5, 64.0)), min_size=1, max_size=12
    ),
    st.floats(1.0, 1e4),
)
def test_best_cache_size_is_the_cheapest_feasible(raw, deadline):
    candidates = [Prediction(t, c, m) for t, c, m in raw]
    feasible = [p for p in candidates if p.completion_s <= deadline]
    if not feasible:
        with pytest.raises(DeadlineError):
            best_cache_size(candidates, deadline)
        return
    best = best_cache_size(candidates, deadline)
    assert best.completion_s <= deadline
    assert best.cost_agbs == min(p.cost_agbs for p in feasible)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: completion_time(1100.0, 3, -4.0, 33.0), "checkpoint_gb"),
        (lambda: completion_time(1100.0, 3, 4.0, 0.0), "throughput_mbps"),
        (lambda: completion_time(1100.0, 3, 4.0, -33.0), "throughput_mbps"),
        (lambda: completion_time(-1.0, 3, 4.0, 33.0), "compute_s"),
        (lambda: completion_time(1100.0, 2.5, 4.0, 33.0), "checkpoints"),
        (lambda: storage_cost(10.0, 33.0, -50.0), "backing_gb"),
        (lambda: CheckpointWorkload(0, 1100.0, 3, 5.0, 4.0), "n_vm"),
        (lambda: CheckpointWorkload(32, 1100.0, 3, -5.0, 4.0), "initial_gb"),
        (lambda: predict_static(workload("CM1"), -33.0, 50.0), "bandwidth_mbps"),
        (lambda: best_cache_size([Prediction(1.0, 1.0)], -5.0), "deadline"),
        (lambda: best_cache_size([], 5.0), "no candidate"),
        (
            lambda: predict_adaptive(
                workload("CM1"), 33.0, 50.0, 128.0, 92.0, 100.0, initial_cache_gb=10.0, checkpoint_cache_gb=-1.0
            ),
            "checkpoint_cache_gb",
        ),
        (
            lambda: predict_adaptive(
                workload("CM1"), 33.0, 50.0, 128.0, "fast", 100.0, initial_cache_gb=10.0, checkpoint_cache_gb=6.0
            ),
            "B\\(Sc\\) must be a number",
        ),
    ],
)
def test_bad_parameters_raise_one_line_model_errors(call, match):
    with pytest.raises(ModelError, match=match) as info:
        call()
    assert "\n" not in str(info.value)


def test_mb_per_gb_default_is_binary():
    assert MB_PER_GB == 1024
