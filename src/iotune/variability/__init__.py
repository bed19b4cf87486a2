"""Predictors of I/O performance variability (paper 003, MOANA, Section 5).

Names load with their module when first used: the interpolators need
scikit-learn and scipy (seconds to import), which reading a study's repeats
does not.
"""

from iotune.lazy import lazy_exports

_EXPORTS = {
    "DelaunayInterpolator": "iotune.learn.estimators.delaunay", "LinearShepard": "iotune.learn.estimators.lsp",
    "Mars": "iotune.learn.estimators.mars",
    "EvaluationRow": "iotune.variability.evaluation", "evaluate": "iotune.variability.evaluation",
    "evaluate_maps": "iotune.variability.evaluation",
    "VariabilityMap": "iotune.variability.maps", "map_points": "iotune.variability.maps",
    **{name: "iotune.variability.planner" for name in (
        "RepeatPlanner", "bootstrap_interval", "convergence", "expected_convergence", "runs_needed",
        "runs_needed_for_cv", "t_interval")},
    "Repeats": "iotune.variability.repeats",
    **{name: "iotune.variability.spread" for name in ("Spread", "bimodality_coefficient", "describe", "is_bimodal")},
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_exports(__name__, _EXPORTS)
