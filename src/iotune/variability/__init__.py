"""Predictors of I/O performance variability (paper 003, MOANA, Section 5)."""

from iotune.learn.estimators.delaunay import DelaunayInterpolator
from iotune.learn.estimators.lsp import LinearShepard
from iotune.learn.estimators.mars import Mars

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
from iotune.variability.repeats import Repeats
from iotune.variability.spread import Spread, bimodality_coefficient, describe, is_bimodal

__all__ = [
    "EvaluationRow", "evaluate", "evaluate_maps", "VariabilityMap", "map_points", "RepeatPlanner",
    "bootstrap_interval", "convergence", "expected_convergence", "runs_needed", "runs_needed_for_cv", "t_interval",
    "Repeats", "Spread", "bimodality_coefficient", "describe", "is_bimodal",
]
