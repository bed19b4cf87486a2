"""The variability-map predictors by name (paper 003, Section 5 and Table 2).

``lsp``: modified linear Shepard (Section 5.1); ``mars``: MARS (Section 5.2);
``delaunay``: Delaunay interpolation (Section 5.3), projecting queries outside
the convex hull onto it; ``linear``: ordinary least squares with an intercept,
the paper's linear regression (LR) baseline.
"""

from __future__ import annotations

from sklearn.linear_model import LinearRegression

from iotune.variability.delaunay import DelaunayInterpolator
from iotune.variability.errors import VariabilityError
from iotune.variability.lsp import LinearShepard
from iotune.variability.mars import Mars

PREDICTORS = ("lsp", "mars", "delaunay", "linear")


def make_predictor(name: str):
    """A fresh, unfitted scikit-learn-style regressor for ``name`` (one of ``PREDICTORS``)."""
    if name == "lsp":
        return LinearShepard()
    if name == "mars":
        return Mars()
    if name == "delaunay":
        return DelaunayInterpolator()
    if name == "linear":
        return LinearRegression()
    raise VariabilityError(f"predictor must be one of {', '.join(PREDICTORS)}, got {name!r}")
