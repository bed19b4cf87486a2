"""Factor effects and ranks from a (folded) PB design (paper 000, Section 4.1).

Effect_j = sum_i X[i, j] * response_i over all runs, with no division (paper 000,
Section 4.1, step 4 and Table 2).  Its sign is meaningless for screening: factors
are ranked by the absolute effect, 1 = most influential.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from iotune.design.plackett_burman import _check_design
from iotune.errors import SpaceError


def effects(design: Any, responses: Any) -> np.ndarray:
    """Return each factor's effect, ``design.T @ responses`` (float64, one per column).

    ``responses[i]`` is the measured response of run i (e.g. bandwidth in MB/s).
    A failed run (NaN or infinite response) makes the effects meaningless, so it
    raises ``SpaceError`` naming the rows (0-based) to re-run.
    """
    x = _check_design(design)
    y = np.asarray(responses, dtype=np.float64)
    if y.ndim != 1 or y.shape[0] != x.shape[0]:
        raise SpaceError(
            f"effects: need one response per run ({x.shape[0]}); got shape {y.shape}"
        )
    bad = np.flatnonzero(~np.isfinite(y))
    if bad.size:
        raise SpaceError(
            "effects: responses are missing (NaN or infinite) for rows "
            f"{', '.join(map(str, bad.tolist()))} (0-based); re-run them before screening"
        )
    return x.T.astype(np.float64) @ y


def rank_effects(effects: Any) -> np.ndarray:
    """Return the rank of each effect: 1 = largest absolute value; ties keep column order."""
    e = np.asarray(effects, dtype=np.float64)
    if e.ndim != 1:
        raise SpaceError(f"rank_effects: effects must be 1-D; got shape {e.shape}")
    if not np.isfinite(e).all():
        raise SpaceError("rank_effects: effects must be finite")
    order = np.argsort(-np.abs(e), kind="stable")
    ranks = np.empty(e.shape[0], dtype=np.int64)
    ranks[order] = np.arange(1, e.shape[0] + 1)
    return ranks


@dataclass(frozen=True)
class Screening:
    """Result of a PB screening: per-factor effects and ranks, and names by rank.

    ``names``, ``effects`` and ``ranks`` are in design column order;
    ``ordered_names`` lists the factors from most to least influential.
    """

    names: tuple[str, ...]
    effects: np.ndarray
    ranks: np.ndarray
    ordered_names: tuple[str, ...]

    @classmethod
    def from_design(cls, names: Sequence[str], design: Any, responses: Any) -> Screening:
        """Screen ``design`` (one column per name) against the measured ``responses``."""
        names = tuple(names)
        eff = effects(design, responses)
        if len(names) != eff.shape[0]:
            raise SpaceError(
                f"Screening: {len(names)} names given for a design with {eff.shape[0]} columns"
            )
        if len(set(names)) != len(names):
            raise SpaceError(f"Screening: factor names must be unique; got {list(names)}")
        ranks = rank_effects(eff)
        ordered = tuple(names[j] for j in np.argsort(ranks, kind="stable"))
        eff.setflags(write=False)
        ranks.setflags(write=False)
        return cls(names=names, effects=eff, ranks=ranks, ordered_names=ordered)

    def rows(self) -> list[dict[str, Any]]:
        """Return one plain dict per factor (name, effect, rank), most influential first."""
        by_rank = np.argsort(self.ranks, kind="stable")
        return [
            {"name": self.names[j], "effect": float(self.effects[j]), "rank": int(self.ranks[j])}
            for j in by_rank
        ]
