"""Parameter screening and PB-guided exploration (paper 000, Sections 4.1 and 5.5).

A foldover Plackett-Burman design over the space's parameters ranks them by
the effect of their low/high values on I/O time; the ranking then guides data
collection (top-ranked parameters first, the rest at defaults) and a space
walk that tunes one parameter at a time in rank order.  The screening,
collection and walk are samplers (:mod:`iotune.samplers.screening`); this
package builds the design, chooses the collection and computes the effects.
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
from iotune.screening.factors import Factor, screening_factors
from iotune.screening.study import ScreeningStudy

__all__ = [
    "Factor",
    "FactorEffect",
    "ScreenResult",
    "ScreeningDesign",
    "ScreeningError",
    "ScreeningStudy",
    "build_design",
    "load_screen",
    "pb_guided_configurations",
    "rank_design",
    "screen_function",
    "screen_trials",
    "screening_factors",
]
