"""Predictors of I/O performance variability (paper 003, MOANA, Section 5)."""

from iotune.variability.delaunay import DelaunayInterpolator
from iotune.variability.lsp import LinearShepard
from iotune.variability.mars import Mars

__all__ = ["DelaunayInterpolator", "LinearShepard", "Mars"]
