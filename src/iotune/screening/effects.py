"""Effects and ranking of a screening from its measured runs (paper 000, Section 4.1, step 4).

Effect = sum over the 2N' rows of sign x response, with no division (paper 000,
Table 2).  The response of a row is the mean I/O time (seconds; sum of the
phase times, :mod:`iotune.analysis`) over the COMPLETE repeats of its
configuration; the bandwidth effect uses the mean bandwidth (MiB/s).  Factors
are ranked by |effect on time|, 1 = most influential; a positive time effect
means the high value is slower.

Nothing but the trials is stored: the study's settings record the design (its
factors with their low and high values, :class:`~iotune.screening.study.ScreeningStudy`),
and :func:`load_screen` recomputes the ranking from the stored trials whenever asked.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from iotune.design import Screening, effects
from iotune.records import io_bandwidth, io_seconds
from iotune.screening.design import ScreeningDesign
from iotune.screening.errors import ScreeningError
from iotune.screening.study import ScreeningStudy
from iotune.space import Configuration
from iotune.stored import StoredStudy


@dataclass(frozen=True)
class FactorEffect:
    """One factor's effects and rank; ``low``/``high`` as written in a spec (``64KiB``)."""

    name: str
    low: str
    high: str
    effect_s: float
    effect_bandwidth: float | None
    rank: int

    def to_dict(self) -> dict:
        return {"name": self.name, "low": self.low, "high": self.high, "effect_s": self.effect_s,
                "effect_bandwidth": self.effect_bandwidth, "rank": self.rank}


@dataclass(frozen=True)
class ScreenResult:
    """A screening's factor effects, most influential first."""

    effects: tuple[FactorEffect, ...]
    runs: int

    @property
    def ranking(self) -> list[str]:
        """Factor names from most to least influential."""
        return [effect.name for effect in self.effects]

    def rows(self) -> list[dict]:
        """One plain dict per factor (name, low, high, effect_s, effect_bandwidth, rank), by rank."""
        return [effect.to_dict() for effect in self.effects]


def rank_design(design: ScreeningDesign, times, bandwidths=None) -> ScreenResult:
    """Effects and ranks from one response per design row (times in seconds, bandwidths in MiB/s)."""
    screening = Screening.from_design(design.names, design.matrix, times)
    bandwidth = None if bandwidths is None else effects(design.matrix, bandwidths)
    out = []
    for j in np.argsort(screening.ranks, kind="stable"):
        factor = design.factors[j]
        parameter = design.space.parameter(factor.name)
        out.append(FactorEffect(factor.name, parameter.format(factor.low), parameter.format(factor.high),
                                float(screening.effects[j]), None if bandwidth is None else float(bandwidth[j]),
                                int(screening.ranks[j])))
    return ScreenResult(tuple(out), int(design.matrix.shape[0]))


def screen_function(design: ScreeningDesign, evaluate: Callable[[Configuration], float]) -> ScreenResult:
    """Screen a model or any ``evaluate(configuration) -> response`` instead of measured runs."""
    return rank_design(design, [float(evaluate(row)) for row in design.rows])


def screen_trials(design: ScreeningDesign, trials, study: str = "the study") -> ScreenResult:
    """Effects from stored trial records: each row's response is the mean over its COMPLETE repeats."""
    times: dict[str, list[float]] = {}
    bandwidths: dict[str, list[float]] = {}
    for trial in trials:
        if trial.state == "COMPLETE" and trial.phases:
            seconds, bandwidth = io_seconds(trial.phases), io_bandwidth(trial.phases)
            times.setdefault(trial.config_key, []).append(seconds)
            bandwidths.setdefault(trial.config_key, []).append(bandwidth)
    missing = [i for i, row in enumerate(design.rows) if row.key not in times]
    if missing:
        row = design.rows[missing[0]]
        raise ScreeningError(
            f"{study}: screening row {missing[0] + 1} of {len(design.rows)} ({row.describe()}) has no COMPLETE "
            f"trial ({len(missing)} row(s) missing); continue with `iotune screen SPEC --resume` "
            "(add --retry-failed to re-run failed trials)")
    return rank_design(design, [statistics.fmean(times[r.key]) for r in design.rows],
                       [statistics.fmean(bandwidths[r.key]) for r in design.rows])


def load_screen(study: StoredStudy | ScreeningStudy) -> ScreenResult:
    """Recompute a screening study's ranking from its stored design and trials."""
    screening = ScreeningStudy.of(study)
    return screen_trials(screening.design, screening.trials(), f"study {screening.name!r}")
