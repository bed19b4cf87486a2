"""Parameter screening and PB-guided exploration (paper 000, Sections 4.1 and 5.5).

A foldover Plackett-Burman design over the space's parameters ranks them by
the effect of their low/high values on I/O time; the ranking then guides data
collection (top-ranked parameters first, the rest at defaults) and a space
walk that tunes one parameter at a time in rank order.
"""

from iotune.screening.collect import pb_guided_configurations
from iotune.screening.design import ScreeningDesign, build_design
from iotune.screening.effects import (
    FactorEffect,
    ScreenResult,
    load_screen,
    rank_design,
    screen_function,
    screen_trials,
)
from iotune.screening.errors import ScreeningError
from iotune.screening.factors import Factor, read_screening_levels, screening_factors
from iotune.screening.run import run_collection, run_screen
from iotune.screening.walk import WalkResult, pb_guided_walk, random_walk

__all__ = [
    "Factor",
    "FactorEffect",
    "ScreenResult",
    "ScreeningDesign",
    "ScreeningError",
    "WalkResult",
    "build_design",
    "load_screen",
    "pb_guided_configurations",
    "pb_guided_walk",
    "random_walk",
    "rank_design",
    "read_screening_levels",
    "run_collection",
    "run_screen",
    "screen_function",
    "screen_trials",
    "screening_factors",
]
