"""Runners: execute one trial (one repeat of one configuration) and return a Measurement."""

from iotune.bench.trial import BenchmarkSpec, Measurement, PhaseResult

__all__ = ["BenchmarkSpec", "Measurement", "PhaseResult"]
