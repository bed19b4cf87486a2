"""Turn a configuration of a space into the benchmark run that measures it.

A parameter reaches the benchmark in one of three ways:

- its name is a benchmark field (``processes``, ``api``, ``collective``,
  ``file_per_process``, ``block_size``, ``transfer_size``, ``segment_count``,
  ``operation``, ``fsync``, ``verify``);
- it is an MPI-IO hint: it has ``hint: KEY``, or it is a system parameter of layer ``mpiio`` (key = its name);
- it sets an environment variable: ``env: NAME``.

Anything else has no effect on the built-in benchmark and is refused before a
campaign starts, so that no trial measures a setting that was never applied.
"""

from __future__ import annotations

from dataclasses import fields

from iotune.bench.trial import OPERATIONS, BenchmarkSpec
from iotune.errors import SpaceError

BENCHMARK_FIELDS = ("processes", "api", "collective", "file_per_process", "block_size", "transfer_size",
                    "segment_count", "operation", "fsync", "verify", "data_pattern")
_SPEC_FIELDS = {f.name for f in fields(BenchmarkSpec)}


def hint_key(parameter) -> str | None:
    """The MPI-IO hint a parameter sets (a system parameter of layer mpiio defaults to its name), or None."""
    return None if parameter.name in BENCHMARK_FIELDS else parameter.hint


def hint_value(value) -> str:
    """MPI_Info values are strings; ROMIO spells booleans enable/disable."""
    if isinstance(value, bool):
        return "enable" if value else "disable"
    return str(value)


def check_runnable(space) -> None:
    """Refuse a space whose parameters the built-in benchmark cannot apply."""
    for parameter in space.parameters:
        if parameter.name in BENCHMARK_FIELDS or hint_key(parameter) or parameter.env:
            continue
        raise SpaceError(
            f"parameter {parameter.name!r} has no effect on the built-in benchmark: it is not a benchmark field "
            f"({', '.join(BENCHMARK_FIELDS)}), has no 'hint:' and no 'env:'"
        )
    names = {p.name for p in space.parameters}
    if "operation" in names:
        bad = [v for v in space.parameter("operation").levels if v not in OPERATIONS]
        if bad:
            raise SpaceError(f"parameter 'operation': levels must be among {', '.join(OPERATIONS)}, got {bad}")
    if "api" in names:
        bad = [v for v in space.parameter("api").levels if v not in ("POSIX", "MPIIO")]
        if bad:
            raise SpaceError(f"parameter 'api': levels must be POSIX or MPIIO, got {bad}")


def benchmark_spec(space, configuration, defaults: dict | None = None) -> BenchmarkSpec:
    """The BenchmarkSpec for one configuration; ``defaults`` fixes fields the space does not vary."""
    values = dict(defaults or {})
    unknown = set(values) - _SPEC_FIELDS
    if unknown:
        raise SpaceError(f"unknown benchmark setting(s) {sorted(unknown)}; allowed: {sorted(_SPEC_FIELDS)}")
    hints = dict(values.pop("hints", {}) or {})
    env = dict(values.pop("env", {}) or {})
    for parameter in space.parameters:
        value = configuration[parameter.name]
        if value is None:
            continue
        if parameter.name in BENCHMARK_FIELDS:
            values[parameter.name] = value
        elif key := hint_key(parameter):
            hints[key] = hint_value(value)
        elif parameter.env:
            env[parameter.env] = hint_value(value) if isinstance(value, bool) else str(value)
    spec = BenchmarkSpec(**values, hints=hints, env=env)
    if spec.api == "POSIX" and hints:
        raise SpaceError(
            f"configuration {configuration.describe()}: MPI-IO hints {sorted(hints)} are set with api=POSIX, which "
            "never reads them; make those parameters conditional with when: \"api == 'MPIIO'\""
        )
    if spec.api == "POSIX" and spec.collective:
        raise SpaceError(f"configuration {configuration.describe()}: collective I/O needs api=MPIIO")
    check_spec(spec)
    return spec


def check_spec(spec: BenchmarkSpec) -> None:
    """Refuse impossible combinations of benchmark fields (the runner's own rules), in one line."""
    from iotune.bench.runner import spec_problem

    problem = spec_problem(spec)
    if problem:
        raise SpaceError(problem)
