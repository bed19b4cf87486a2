"""The target workload's runs so far, checked and summarised per candidate."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from iotune.transfer.errors import TransferError


@dataclass(frozen=True)
class Summary:
    """Runs summarised: ``measured`` candidates with a success, their ``mean`` (log units when the engine
    works in logs), ``count`` of successes and ``var`` (sample variance of their repeats, NaN with one);
    ``failed``: candidates with at least one failed run; ``runs``: number of runs."""

    measured: np.ndarray
    mean: np.ndarray
    count: np.ndarray
    var: np.ndarray
    failed: frozenset
    runs: int

    def value(self, candidate: int) -> float | None:
        hit = np.flatnonzero(self.measured == candidate)
        return float(self.mean[hit[0]]) if hit.size else None


def summarise(observations: Iterable, candidates: int, log: bool) -> Summary:
    """Check ``observations`` ((candidate index, value) pairs; a value of None or +inf is a failed run)."""
    sums: dict[int, list[float]] = {}
    failed = set()
    runs = 0
    for item in observations:
        try:
            index, value = item
        except (TypeError, ValueError):
            raise TransferError(f"an observation is a (candidate index, value) pair, got {item!r}") from None
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < candidates:
            raise TransferError(f"candidate index must be an integer in [0, {candidates}), got {index!r}")
        runs += 1
        if value is None or (isinstance(value, (int, float, np.floating)) and value == math.inf):
            failed.add(int(index))
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise TransferError(f"value of candidate {index} must be a number or None (failed), "
                                f"got {value!r}") from None
        if math.isnan(number) or math.isinf(number) or (log and number <= 0):
            kind = "positive and finite" if log else "finite"
            raise TransferError(f"value of candidate {index} must be {kind} (None or +inf for a failed run), "
                                f"got {value!r}")
        sums.setdefault(int(index), []).append(math.log(number) if log else number)
    measured = np.array(sorted(sums), dtype=int)
    values = [np.array(sums[i]) for i in measured]
    mean = np.array([v.mean() for v in values])
    count = np.array([len(v) for v in values], dtype=float)
    var = np.array([v.var(ddof=1) if len(v) > 1 else np.nan for v in values])
    return Summary(measured, mean, count, var, frozenset(failed), runs)
