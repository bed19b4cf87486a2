"""Screening effects a reader can weigh: in seconds per run, as a share of the run time, per phase, with their
uncertainty.

Paper 000 (Zhai et al., ACIC, Sec. 4.1, step 4) defines a factor's effect as the
sum over the 2N' design rows of sign x response, with no division
(:mod:`iotune.screening.effects` keeps it as ``effect_s``).  That sum grows with
the number of rows: -4.7 s over 24 rows when one run takes 0.2 s.  Here the
same contrast is said as the difference between the mean response at the high
and at the low value, ``effect / (2N' / 2)`` (each value is half the rows of a
foldover design), in seconds, and as a share of the mean run time.

Its 95 % interval is computed where the report computes it
(:mod:`iotune.report.effects`: from the repeats, else Lenth's method);
:func:`close_pairs` says which neighbours in the ranking are closer than their
uncertainty, so that another screening of the same spec may order them the
other way.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np

from iotune.records import io_seconds
from iotune.screening.design import ScreeningDesign
from iotune.screening.study import ScreeningStudy
from iotune.stored import StoredStudy


@dataclass(frozen=True)
class NormalisedEffect:
    """One factor's effect as mean(high) - mean(low) of I/O time in seconds, in all and per phase.

    ``share`` is ``diff_s`` over the mean I/O time of all rows (0.25 = the high value adds a quarter of a run).
    ``write_diff_s``/``read_diff_s`` are None when some row has no trial with that phase.
    """

    name: str
    diff_s: float
    share: float
    write_diff_s: float | None
    read_diff_s: float | None

    @property
    def phases_disagree(self) -> bool:
        """True when the high value speeds one phase and slows the other (write and read effects of opposite
        sign), so the time effect is a net of two opposite effects."""
        w, r = self.write_diff_s, self.read_diff_s
        return w is not None and r is not None and w * r < 0

    def to_dict(self) -> dict:
        return {"diff_s": self.diff_s, "share_pct": 100.0 * self.share,
                "write_diff_s": self.write_diff_s, "read_diff_s": self.read_diff_s,
                "phases_disagree": self.phases_disagree}


def normalised_effects(design: ScreeningDesign, trials) -> dict[str, NormalisedEffect]:
    """Factor name -> :class:`NormalisedEffect` from the COMPLETE trials of a screening (every row measured)."""
    totals: dict[str, list[float]] = {}
    phases: dict[str, dict[str, list[float]]] = {}
    for trial in trials:
        if trial.state == "COMPLETE" and trial.phases:
            totals.setdefault(trial.config_key, []).append(io_seconds(trial.phases))
            for name in {p.phase for p in trial.phases}:
                phases.setdefault(name, {}).setdefault(trial.config_key, []).append(io_seconds(trial.phases, name))
    keys = [row.key for row in design.rows]
    rows = len(keys)
    signs = np.asarray(design.matrix, dtype=float)
    means = np.array([statistics.fmean(totals[k]) for k in keys])
    grand = float(means.mean())
    diffs = signs.T @ means * (2.0 / rows)
    per_phase = {}
    for name in ("write", "read"):
        by_key = phases.get(name, {})
        if all(k in by_key for k in keys):
            per_phase[name] = signs.T @ np.array([statistics.fmean(by_key[k]) for k in keys]) * (2.0 / rows)
    out = {}
    for j, factor in enumerate(design.factors):
        out[factor.name] = NormalisedEffect(
            factor.name, float(diffs[j]), float(diffs[j]) / grand if grand > 0 else float("nan"),
            float(per_phase["write"][j]) if "write" in per_phase else None,
            float(per_phase["read"][j]) if "read" in per_phase else None)
    return out


def close_pairs(names, effects, half_widths) -> list[tuple[str, str]]:
    """Neighbours in a ranking (``names`` most influential first, their ``effects`` and 95 % ``half_widths``)
    whose |effects| differ by less than the combined half-width sqrt(h1^2 + h2^2): another screening of the same
    spec may order them the other way.  Empty without half-widths."""
    pairs = []
    for i in range(len(names) - 1):
        h1, h2 = half_widths[i], half_widths[i + 1]
        if h1 is None or h2 is None:
            continue
        if abs(abs(effects[i]) - abs(effects[i + 1])) < math.hypot(h1, h2):
            pairs.append((names[i], names[i + 1]))
    return pairs


def load_normalised(study: StoredStudy | ScreeningStudy) -> dict[str, NormalisedEffect]:
    """:func:`normalised_effects` of a stored screening study."""
    screening = ScreeningStudy.of(study)
    return normalised_effects(screening.design, screening.trials())
