"""Typed configuration spaces: parameters with levels, activation rules and constraints, from YAML."""

from iotune.space.configuration import Configuration
from iotune.space.parameter import Parameter
from iotune.space.space import Space

__all__ = ["Configuration", "Parameter", "Space"]
