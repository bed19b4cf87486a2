"""Plackett-Burman screening designs with foldover (paper 000, Section 4.1).

A Plackett-Burman (PB) design screens N two-level factors in N' runs, N' the
smallest multiple of 4 strictly greater than N (N = 7 -> 8, N = 8 -> 12).  Each
entry is +1 (the factor's high value) or -1 (its low value); every column is
balanced and any two columns are orthogonal, so each main effect is estimated
independently of the others.  The foldover appends the N' negated runs, which
frees the main effects from aliasing with two-factor interactions (paper 000,
Table 2 is the foldover design for N = 7).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from iotune.design._pb_tables import GENERATORS, MATRICES
from iotune.errors import SpaceError

MAX_FACTORS = 47
"""Largest number of factors supported (N' = 48 runs)."""


def run_count(n_factors: int) -> int:
    """Return N', the number of runs of the PB design for ``n_factors`` factors."""
    n = _check_n_factors(n_factors)
    return 4 * (n // 4 + 1)


def plackett_burman(n_factors: int) -> np.ndarray:
    """Return the PB design for ``n_factors`` factors: an (N', n_factors) array of +1/-1.

    Rows are runs, columns factors.  For a cyclic N' the first row is Plackett and
    Burman's generator, each next row its circular right shift and the last row all
    -1 (paper 000, Section 4.1, step 1); N' = 28 and 40 use stored matrices.  Only
    the first ``n_factors`` of the N' - 1 columns are kept.
    """
    n = _check_n_factors(n_factors)
    n_runs = run_count(n)
    if n_runs in GENERATORS:
        first = _signs(GENERATORS[n_runs])
        rows = [np.roll(first, shift) for shift in range(n_runs - 1)]
        rows.append(-np.ones(n_runs - 1, dtype=np.int64))
        full = np.vstack(rows)
    else:
        full = np.vstack([_signs(row) for row in MATRICES[n_runs]])
    return full[:, :n].copy()


def foldover(design: Any) -> np.ndarray:
    """Return ``design`` followed by its negated runs (2N' rows; paper 000, Table 2)."""
    x = _check_design(design)
    return np.vstack([x, -x])


def design_levels(design: Any, low_high: Sequence[tuple[Any, Any]]) -> list[list[Any]]:
    """Map each run of ``design`` to factor values: -1 -> ``low``, +1 -> ``high``.

    ``low_high[j]`` is the (low, high) pair of factor j (paper 000, Table 3); the
    result has one list of values per run, in column order.
    """
    x = _check_design(design)
    pairs = list(low_high)
    if len(pairs) != x.shape[1]:
        raise SpaceError(
            f"design_levels: the design has {x.shape[1]} factor columns but "
            f"{len(pairs)} (low, high) pairs were given"
        )
    for j, pair in enumerate(pairs):
        if len(pair) != 2:
            raise SpaceError(f"design_levels: pair {j} must be (low, high); got {pair!r}")
    return [[pairs[j][1] if sign > 0 else pairs[j][0] for j, sign in enumerate(row)] for row in x]


def _signs(text: str) -> np.ndarray:
    return np.array([1 if c == "+" else -1 for c in text], dtype=np.int64)


def _check_n_factors(n_factors: int) -> int:
    try:
        if isinstance(n_factors, bool):
            raise TypeError
        n = operator.index(n_factors)
    except TypeError:
        raise SpaceError(
            f"n_factors must be an integer from 1 to {MAX_FACTORS}; got {n_factors!r}"
        ) from None
    if not 1 <= n <= MAX_FACTORS:
        raise SpaceError(
            f"n_factors must be from 1 to {MAX_FACTORS} (Plackett-Burman designs are "
            f"tabulated up to N' = {MAX_FACTORS + 1} runs); got {n}"
        )
    return n


def _check_design(design: Any) -> np.ndarray:
    x = np.asarray(design)
    if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] == 0:
        raise SpaceError(f"a design must be a non-empty 2-D array of +1/-1; got shape {x.shape}")
    if x.dtype == bool or not np.isin(x, (-1, 1)).all():
        raise SpaceError("a design must contain only +1 and -1")
    return x.astype(np.int64)
