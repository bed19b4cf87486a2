"""Screening designs: Plackett-Burman with foldover, effects and ranks (paper 000, Section 4.1)."""

from iotune.design.plackett_burman import (
    MAX_FACTORS,
    design_levels,
    foldover,
    plackett_burman,
    run_count,
)
from iotune.design.screening import Screening, effects, rank_effects

__all__ = [
    "MAX_FACTORS",
    "Screening",
    "design_levels",
    "effects",
    "foldover",
    "plackett_burman",
    "rank_effects",
    "run_count",
]
