"""Predictors of I/O performance variability (paper 003, MOANA, Section 5)."""

from iotune.variability.delaunay import DelaunayInterpolator
from iotune.variability.lsp import LinearShepard
from iotune.variability.mars import Mars

__all__ = ["DelaunayInterpolator", "LinearShepard", "Mars"]

from iotune.variability.evaluation import EvaluationRow, evaluate, evaluate_maps  # noqa: E402
from iotune.variability.maps import VariabilityMap, map_points  # noqa: E402
from iotune.variability.planner import (  # noqa: E402
    RepeatPlanner,
    bootstrap_interval,
    convergence,
    expected_convergence,
    runs_needed,
    runs_needed_for_cv,
    t_interval,
)
from iotune.variability.repeats import Repeats  # noqa: E402
from iotune.variability.spread import Spread, bimodality_coefficient, describe, is_bimodal  # noqa: E402

__all__ += [
    "EvaluationRow", "evaluate", "evaluate_maps", "VariabilityMap", "map_points", "RepeatPlanner",
    "bootstrap_interval", "convergence", "expected_convergence", "runs_needed", "runs_needed_for_cv", "t_interval",
    "Repeats", "Spread", "bimodality_coefficient", "describe", "is_bimodal",
]
