"""Plackett-Burman construction (paper 000, Section 4.1), checked against the shared reference."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from iotune.design import MAX_FACTORS, design_levels, foldover, plackett_burman, run_count
from iotune.errors import SpaceError

DATA = Path(__file__).parents[1] / "data" / "reference"
REFERENCE = json.loads((DATA / "plackett_burman_designs.json").read_text())["designs"]
ALL_N = list(range(1, MAX_FACTORS + 1))


def signs(text):
    return np.array([1 if c == "+" else -1 for c in text])


def reference_matrix(n_runs):
    """The reference's full N' x (N'-1) design, rebuilt here independently of the package."""
    entry = REFERENCE[str(n_runs)]
    if "matrix" in entry:
        return np.vstack([signs(row) for row in entry["matrix"]])
    first = signs(entry["generator"])
    rows = [np.roll(first, k) for k in range(n_runs - 1)] + [-np.ones(n_runs - 1, dtype=int)]
    return np.vstack(rows)


def test_reference_covers_every_run_count_from_8_to_48():
    assert sorted(map(int, REFERENCE)) == list(range(8, 49, 4))
    assert all(entry["valid"] for entry in REFERENCE.values())


@pytest.mark.parametrize(
    ("n_factors", "n_runs"),
    [(1, 4), (3, 4), (4, 8), (7, 8), (8, 12), (11, 12), (12, 16), (15, 16), (27, 28), (47, 48)],
)
def test_run_count_is_smallest_multiple_of_4_strictly_above(n_factors, n_runs):
    assert run_count(n_factors) == n_runs
    assert plackett_burman(n_factors).shape == (n_runs, n_factors)


@pytest.mark.parametrize("n_runs", sorted(map(int, REFERENCE)))
def test_full_designs_equal_reference(n_runs):
    assert np.array_equal(plackett_burman(n_runs - 1), reference_matrix(n_runs))


@pytest.mark.parametrize("n_runs", sorted(int(k) for k, v in REFERENCE.items() if "generator" in v))
def test_cyclic_rows_are_right_shifts_of_the_generator(n_runs):
    x = plackett_burman(n_runs - 1)
    assert np.array_equal(x[0], signs(REFERENCE[str(n_runs)]["generator"]))
    for k in range(1, n_runs - 1):
        assert np.array_equal(x[k], np.roll(x[k - 1], 1))
    assert (x[-1] == -1).all()


def test_paper_000_n7_design_is_table_2_top_half():
    ref = json.loads((DATA / "plackett_burman.json").read_text())
    table2 = np.array(ref["matrix_corrected"])
    assert np.array_equal(plackett_burman(7), table2[:8])
    assert np.array_equal(foldover(plackett_burman(7)), table2)


@pytest.mark.parametrize("n_factors", ALL_N)
def test_design_is_balanced_and_orthogonal(n_factors):
    x = plackett_burman(n_factors)
    n_runs = run_count(n_factors)
    assert set(np.unique(x)) <= {-1, 1}
    assert (x.sum(axis=0) == 0).all()
    assert np.array_equal(x.T @ x, n_runs * np.eye(n_factors, dtype=int))


@pytest.mark.parametrize("n_factors", ALL_N)
def test_design_uses_first_columns_of_the_full_design(n_factors):
    full = plackett_burman(run_count(n_factors) - 1)
    assert np.array_equal(plackett_burman(n_factors), full[:, :n_factors])


@pytest.mark.parametrize("n_runs", [4, *sorted(map(int, REFERENCE))])
def test_foldover_main_effects_orthogonal_to_all_two_factor_interactions(n_runs):
    x = foldover(plackett_burman(n_runs - 1))
    k = x.shape[1]
    assert x.shape == (2 * n_runs, k)
    assert np.array_equal(x[n_runs:], -x[:n_runs])
    assert np.array_equal(x.T @ x, 2 * n_runs * np.eye(k, dtype=int))
    interactions = (x[:, :, None] * x[:, None, :]).reshape(2 * n_runs, k * k)
    assert not (x.T @ interactions).any()


@given(st.integers(1, MAX_FACTORS), st.data())
def test_foldover_orthogonality_holds_for_any_subset_of_columns(n_factors, data):
    x = foldover(plackett_burman(n_factors))
    i = data.draw(st.integers(0, n_factors - 1))
    j = data.draw(st.integers(0, n_factors - 1))
    m = data.draw(st.integers(0, n_factors - 1))
    assert x[:, m] @ (x[:, i] * x[:, j]) == 0
    assert x[:, i].sum() == 0


@pytest.mark.parametrize("bad", [0, -1, MAX_FACTORS + 1, 100, 2.0, "7", None, True])
def test_out_of_range_n_factors_is_a_space_error(bad):
    with pytest.raises(SpaceError, match="n_factors"):
        plackett_burman(bad)
    with pytest.raises(ValueError):
        run_count(bad)


def test_numpy_integer_is_accepted():
    assert plackett_burman(np.int64(5)).shape == (8, 5)


@pytest.mark.parametrize(
    "bad", [np.ones(3), np.zeros((2, 2)), np.array([[1, 2], [-1, 1]]), np.empty((0, 3)), [[True]]]
)
def test_foldover_rejects_non_designs(bad):
    with pytest.raises(SpaceError):
        foldover(bad)


def test_design_levels_maps_signs_to_low_and_high():
    x = plackett_burman(3)
    levels = design_levels(x, [("1MB", "512MB"), ("read", "write"), (1, 4)])
    assert levels == [
        ["512MB", "write", 1],
        ["1MB", "write", 4],
        ["512MB", "read", 4],
        ["1MB", "read", 1],
    ]


@given(st.integers(1, MAX_FACTORS))
def test_design_levels_round_trips(n_factors):
    x = foldover(plackett_burman(n_factors))
    levels = design_levels(x, [(f"lo{j}", f"hi{j}") for j in range(n_factors)])
    back = np.array([[1 if v.startswith("hi") else -1 for v in row] for row in levels])
    assert np.array_equal(back, x)


def test_design_levels_needs_one_pair_per_column():
    with pytest.raises(SpaceError, match="2 factor columns but 1"):
        design_levels(plackett_burman(2), [(0, 1)])
    with pytest.raises(SpaceError, match="pair 1"):
        design_levels(plackett_burman(2), [(0, 1), (0, 1, 2)])
