"""Turn a configuration of a space into the benchmark run that measures it.

A parameter reaches the benchmark in one of three ways:

- its name is a benchmark field (``processes``, ``api``, ``collective``,
  ``file_per_process``, ``block_size``, ``transfer_size``, ``segment_count``,
  ``operation``, ``fsync``, ``verify``);
- it is an MPI-IO hint: it has ``hint: KEY``, or it is a system parameter of layer ``mpiio`` (key = its name);
- it sets an environment variable: ``env: NAME``;
- it is a storage option (``fs``, ``devices``, ``raid0``, ``scheduler``,
  ``device_class``, ``mount_options``; role ``system``, layer ``device`` or
  ``filesystem``; paper 000 Sec. 2.1): it is applied by building a testbed
  (:func:`storage_config`), not by the benchmark.

Anything else has no effect on the built-in benchmark and is refused before a
campaign starts, so that no trial measures a setting that was never applied.
"""

from __future__ import annotations

from dataclasses import fields
from functools import lru_cache

from iotune.records import OPERATIONS, BenchmarkSpec
from iotune.errors import SpaceError

BENCHMARK_FIELDS = ("processes", "api", "collective", "file_per_process", "block_size", "transfer_size",
                    "segment_count", "operation", "fsync", "verify", "data_pattern")
_SPEC_FIELDS = {f.name for f in fields(BenchmarkSpec)}
STORAGE_FIELDS = ("fs", "devices", "raid0", "scheduler", "device_class", "mount_options")
STORAGE_LAYERS = ("device", "filesystem")


def is_storage_parameter(parameter) -> bool:
    """True for a storage option the testbed applies: a storage name, role system, layer device or filesystem."""
    return (parameter.name in STORAGE_FIELDS and parameter.role == "system" and parameter.layer in STORAGE_LAYERS
            and not parameter.hint and not parameter.env)


def storage_parameters(space) -> list:
    """The parameters of ``space`` that are applied by building a storage testbed."""
    return [p for p in space.parameters if is_storage_parameter(p)]


def _device_classes(device_classes):
    return _packaged_device_classes() if device_classes is None else device_classes


@lru_cache(maxsize=1)
def _packaged_device_classes():
    from iotune.recommend.cost import CostModel

    return CostModel.from_yaml().device_classes


def storage_config(space, configuration, defaults: dict | None = None, device_classes=None):
    """The StorageConfig a configuration needs, or None when ``space`` has no storage parameter.

    ``defaults`` fixes StorageConfig fields the space does not vary (e.g. ``size_mib``);
    ``device_class`` sets ``write_mbps``, ``read_mbps`` and ``iops`` from ``device_classes``
    (name -> :class:`iotune.recommend.cost.DeviceClass`; default: the packaged pricing file).
    An inactive storage parameter (None) keeps the default.  SpaceError, in one line, for
    a combination that cannot be built (e.g. devices > 1 on ext4).
    """
    from iotune.testbed.config import StorageConfig

    parameters = storage_parameters(space)
    if not parameters:
        return None
    values = dict(defaults or {})
    for parameter in parameters:
        value = configuration[parameter.name]
        if value is None:
            continue
        if parameter.name == "device_class":
            classes = _device_classes(device_classes)
            if value not in classes:
                raise SpaceError(f"parameter 'device_class': {value!r} is not a device class of the pricing file "
                                 f"(known: {', '.join(classes) or 'none'})")
            chosen = classes[value]
            values.update(write_mbps=chosen.write_mbps, read_mbps=chosen.read_mbps, iops=chosen.iops)
        else:
            values[parameter.name] = value
    try:
        return StorageConfig(**values)
    except TypeError as error:
        raise SpaceError(f"storage defaults: {error}") from None
    except SpaceError as error:
        raise SpaceError(f"configuration {configuration.describe()}: {error}") from None


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
        if is_storage_parameter(parameter):
            _check_storage_levels(parameter)
            continue
        raise SpaceError(
            f"parameter {parameter.name!r} has no effect on the built-in benchmark: it is not a benchmark field "
            f"({', '.join(BENCHMARK_FIELDS)}), has no 'hint:' and no 'env:', and is not a storage option "
            f"({', '.join(STORAGE_FIELDS)}) with role system and layer {' or '.join(STORAGE_LAYERS)}"
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


def _check_storage_levels(parameter) -> None:
    from iotune.testbed.config import DEVICE_COUNTS, FILE_SYSTEMS, SCHEDULERS

    allowed = {"fs": FILE_SYSTEMS, "devices": DEVICE_COUNTS, "scheduler": SCHEDULERS, "raid0": (False, True)}
    if parameter.name == "device_class":
        allowed["device_class"] = tuple(_device_classes(None))
    if parameter.name in allowed:
        bad = [v for v in parameter.levels if v not in allowed[parameter.name]]
        if bad:
            raise SpaceError(f"parameter {parameter.name!r}: levels must be among "
                             f"{', '.join(map(str, allowed[parameter.name]))}, got {bad}")


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
