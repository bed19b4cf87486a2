"""Effects and ranks (paper 000, Section 4.1 and Table 2)."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from iotune.design import Screening, effects, foldover, plackett_burman, rank_effects
from iotune.errors import SpaceError

TABLE2 = json.loads((Path(__file__).parents[1] / "data" / "reference" / "plackett_burman.json").read_text())
PERF = np.array(TABLE2["perf"])
PRINTED_EFFECTS = [-109, -9, -63, -95, 1, -81, 5]
PRINTED_RANKS = [1, 5, 4, 2, 7, 3, 6]


def test_paper_000_table_2_with_row_6_corrected():
    # Paper 000's Table 2 prints row 6, column F as -1; the standard foldover design
    # (and the printed effect of F) need +1 there.
    x = foldover(plackett_burman(7))
    assert x[5, 5] == 1
    assert np.array_equal(x, np.array(TABLE2["matrix_corrected"]))
    assert effects(x, PERF).tolist() == PRINTED_EFFECTS
    assert rank_effects(effects(x, PERF)).tolist() == PRINTED_RANKS


def test_paper_000_table_2_as_printed_does_not_give_the_printed_effects():
    printed = np.array(TABLE2["matrix_as_printed"])
    corrected = foldover(plackett_burman(7))
    diff = np.argwhere(printed != corrected)
    assert diff.tolist() == [[5, 5]]  # row 6, column F (1-based)
    eff = effects(printed, PERF)
    assert eff.tolist() != PRINTED_EFFECTS
    # Only F changes: the flipped cell moves it by 2 * 35 (row 6's Perf.) to -151.
    assert (eff - np.array(PRINTED_EFFECTS)).tolist() == [0, 0, 0, 0, 0, -70, 0]
    assert rank_effects(eff).tolist() == [2, 5, 4, 3, 7, 1, 6] != PRINTED_RANKS


def test_effect_of_a_is_the_papers_worked_sum():
    x = foldover(plackett_burman(7))
    assert int(sum(x[i, 0] * PERF[i] for i in range(16))) == -109


def test_screening_from_table_2():
    s = Screening.from_design(list("ABCDEFG"), foldover(plackett_burman(7)), PERF)
    assert s.names == tuple("ABCDEFG")
    assert s.effects.tolist() == PRINTED_EFFECTS
    assert s.ranks.tolist() == PRINTED_RANKS
    assert s.ordered_names == ("A", "D", "F", "C", "B", "G", "E")
    assert [r["name"] for r in s.rows()] == list(s.ordered_names)
    assert s.rows()[0] == {"name": "A", "effect": -109.0, "rank": 1}
    with pytest.raises(ValueError):
        s.effects[0] = 0


def test_nan_response_names_the_failed_rows():
    y = PERF.astype(float)
    y[[2, 9]] = np.nan
    with pytest.raises(SpaceError, match=r"rows 2, 9 \(0-based\)"):
        effects(foldover(plackett_burman(7)), y)
    y[2] = np.inf
    with pytest.raises(SpaceError, match="rows 2, 9"):
        Screening.from_design(list("ABCDEFG"), foldover(plackett_burman(7)), y)


def test_response_count_must_match_runs():
    with pytest.raises(SpaceError, match="one response per run"):
        effects(plackett_burman(7), PERF)


def test_screening_checks_names():
    x = foldover(plackett_burman(3))
    with pytest.raises(SpaceError, match="2 names"):
        Screening.from_design(["a", "b"], x, np.arange(8))
    with pytest.raises(SpaceError, match="unique"):
        Screening.from_design(["a", "b", "a"], x, np.arange(8))


def test_rank_ties_keep_column_order():
    assert rank_effects([3, -5, 5, 0, -3]).tolist() == [3, 1, 2, 5, 4]
    with pytest.raises(SpaceError):
        rank_effects([1.0, np.nan])
    with pytest.raises(SpaceError):
        rank_effects([[1.0]])


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=47))
def test_ranks_are_a_permutation_ordered_by_magnitude(values):
    ranks = rank_effects(values)
    assert sorted(ranks.tolist()) == list(range(1, len(values) + 1))
    by_rank = np.abs(np.array(values))[np.argsort(ranks)]
    assert (np.diff(by_rank) <= 0).all()


@given(
    st.integers(1, 47),
    st.data(),
)
def test_effects_recover_a_linear_model_exactly(n_factors, data):
    # y = b0 + sum_j b_j x_j: the folded design's effect_j is 2N' * b_j, whatever b0
    # and whatever pure two-factor interaction is added (foldover de-aliases them).
    coef = st.integers(-1000, 1000)
    b0 = data.draw(coef)
    b = np.array(data.draw(st.lists(coef, min_size=n_factors, max_size=n_factors)))
    x = foldover(plackett_burman(n_factors))
    i, j = data.draw(st.integers(0, n_factors - 1)), data.draw(st.integers(0, n_factors - 1))
    y = b0 + x @ b + data.draw(coef) * x[:, i] * x[:, j]
    assert np.array_equal(effects(x, y), x.shape[0] * b)
