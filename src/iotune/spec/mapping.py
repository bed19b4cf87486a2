"""Turn a configuration of a space into the benchmark run that measures it.

A parameter reaches the benchmark in one of three ways:

- its name is a benchmark field (``processes``, ``api``, ``collective``,
  ``file_per_process``, ``block_size``, ``transfer_size``, ``segment_count``,
  ``operation``, ``fsync``, ``verify``);
- it is an MPI-IO hint: it has ``hint: KEY``, or it is a system parameter of layer ``mpiio`` (key = its name);
- it sets an environment variable: ``env: NAME``;
- it is a file layout (``stripe_count``, ``stripe_unit``, ``object_size``,
  ``pool``; role ``system``, layer ``filesystem``): set on each benchmark file
  before it is written, by the driver of the file system it lives on
  (:mod:`iotune.fslayout`);
- it is an HDF5 setting (``datasets``, ``chunked``, ``chunk_size``, ``alignment``, ...; role ``system``,
  layer ``hdf5``; :mod:`iotune.spec.hdf5`), applied by ``api: HDF5`` to the file it writes;
- it is a storage option (``fs``, ``devices``, ``raid0``, ``scheduler``,
  ``device_class``, ``mount_options``; role ``system``, layer ``device`` or
  ``filesystem``; paper 000 Sec. 2.1): it is applied by building a testbed
  (:func:`iotune.spec.storage.storage_config`), not by the benchmark.

Anything else has no effect on the built-in benchmark and is refused before a
campaign starts, so that no trial measures a setting that was never applied.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from iotune.errors import SpaceError
from iotune.fslayout import LAYOUT_FIELDS, LayoutError, check_layout
from iotune.records import APIS, APIS_TEXT, OPERATIONS, BenchmarkSpec
from iotune.spec.environment import check_environment, check_value
from iotune.spec.hdf5 import HDF5_FIELDS, Hdf5SettingError, check_hdf5, setting_key, settings_problem
from iotune.spec.storage import STORAGE_FIELDS, STORAGE_LAYERS, check_storage_levels, is_storage_parameter

BENCHMARK_FIELDS = ("processes", "api", "collective", "file_per_process", "block_size", "transfer_size",
                    "segment_count", "operation", "fsync", "verify", "data_pattern")
_SPEC_FIELDS = {f.name for f in fields(BenchmarkSpec)}


def is_layout_parameter(parameter) -> bool:
    """True for a file-layout parameter: a layout field's name, role system, layer filesystem, no hint or env."""
    return (parameter.name in LAYOUT_FIELDS and parameter.role == "system" and parameter.layer == "filesystem"
            and not parameter.hint and not parameter.env)


def is_hdf5_parameter(parameter) -> bool:
    """True for an HDF5 setting: an HDF5 field's name, role system, layer hdf5, no hint or env."""
    return (parameter.name in HDF5_FIELDS and parameter.role == "system" and parameter.layer == "hdf5"
            and not parameter.hint and not parameter.env)


def read_back_key(parameter) -> str | None:
    """The key a parameter's value as it took effect is recorded under (a trial's ``hints_in_effect``): its
    MPI-IO hint, ``hdf5.<name>`` for an HDF5 setting, else None."""
    return setting_key(parameter.name) if is_hdf5_parameter(parameter) else hint_key(parameter)


def asked_value(parameter, value) -> str:
    """``value`` of a hint or HDF5 parameter as the run asks for it, to compare with what was read back."""
    if is_hdf5_parameter(parameter):
        return check_hdf5({parameter.name: value}, whole=False)[parameter.name]
    return hint_value(value)


def hint_key(parameter) -> str | None:
    """The MPI-IO hint a parameter sets (a system parameter of layer mpiio defaults to its name), or None."""
    return None if parameter.name in BENCHMARK_FIELDS else parameter.hint


def hint_value(value) -> str:
    """MPI_Info values are strings; ROMIO spells booleans enable/disable."""
    if isinstance(value, bool):
        return "enable" if value else "disable"
    return str(value)


HINT_SEPARATORS = "=;"
"""Characters that separate hints in the forms an application reads them (``key=value`` in MPICH_MPIIO_HINTS,
``;`` between settings): in a value they would add hints of their own."""


def check_hint_value(key: str, value: str) -> str:
    """``value`` if an MPI-IO hint can carry it: no whitespace or control character (a ROMIO hints file is
    ``key value`` lines), no ``=`` or ``;`` (``enable:cb_nodes=99`` became two hints in MPICH_MPIIO_HINTS),
    at most 1024 characters (MPI_MAX_INFO_VAL)."""
    if not value or len(value) > 1024 or any(c.isspace() or not c.isprintable() or c in HINT_SEPARATORS
                                             for c in value):
        raise SpaceError(f"MPI-IO hint {key}: value {value[:40]!r} is empty, longer than 1024 characters "
                         f"(MPI_MAX_INFO_VAL), or holds whitespace, a control character, '=' or ';', which would "
                         "add hints of its own where the application reads them")
    return value


def check_runnable(space, allowed=None) -> None:
    """Refuse a space whose parameters the built-in benchmark cannot apply, or that sets an unsafe variable.

    ``allowed``: variable names the user allows beyond the safe list (default: ``IOTUNE_ALLOW_ENV``).
    """
    env_levels = {}
    for parameter in space.parameters:
        if key := hint_key(parameter):
            for level in parameter.levels:
                check_hint_value(key, hint_value(level))
        elif parameter.env and parameter.name not in BENCHMARK_FIELDS:
            for level in parameter.levels:
                env_levels[parameter.env] = check_value(parameter.env, hint_value(level))
    check_environment(env_levels, f"space {space.name!r}", allowed)
    for parameter in space.parameters:
        if parameter.name in BENCHMARK_FIELDS or hint_key(parameter) or parameter.env:
            continue
        if is_layout_parameter(parameter):
            try:
                for level in parameter.levels:
                    check_layout({parameter.name: level})
            except LayoutError as error:
                raise SpaceError(f"parameter {parameter.name!r}: {error}") from None
            continue
        if is_hdf5_parameter(parameter):
            try:
                for level in parameter.levels:
                    check_hdf5({parameter.name: level}, whole=False)
            except Hdf5SettingError as error:
                raise SpaceError(f"parameter {parameter.name!r}: {error}") from None
            continue
        if is_storage_parameter(parameter):
            check_storage_levels(parameter)
            continue
        raise SpaceError(
            f"parameter {parameter.name!r} has no effect on the built-in benchmark: it is not a benchmark field "
            f"({', '.join(BENCHMARK_FIELDS)}), has no 'hint:' and no 'env:', and is not a storage option "
            f"({', '.join(STORAGE_FIELDS)}) with role system and layer {' or '.join(STORAGE_LAYERS)}, and is not a "
            f"file layout ({', '.join(LAYOUT_FIELDS)}) with role system and layer filesystem, nor an HDF5 setting "
            f"({', '.join(HDF5_FIELDS)}) with role system and layer hdf5"
        )
    names = {p.name for p in space.parameters}
    if "operation" in names:
        bad = [v for v in space.parameter("operation").levels if v not in OPERATIONS]
        if bad:
            raise SpaceError(f"parameter 'operation': levels must be among {', '.join(OPERATIONS)}, got {bad}")
    if "api" in names:
        bad = [v for v in space.parameter("api").levels if v not in APIS]
        if bad:
            raise SpaceError(f"parameter 'api': levels must be {APIS_TEXT}, got {bad}")


def benchmark_spec(space, configuration, defaults: dict | None = None) -> BenchmarkSpec:
    """The BenchmarkSpec for one configuration; ``defaults`` fixes fields the space does not vary."""
    values = dict(defaults or {})
    unknown = set(values) - _SPEC_FIELDS
    if unknown:
        raise SpaceError(f"unknown benchmark setting(s) {sorted(unknown)}; allowed: {sorted(_SPEC_FIELDS)}")
    hints = {key: check_hint_value(key, hint_value(value)) for key, value in (values.pop("hints", {}) or {}).items()}
    env = dict(values.pop("env", {}) or {})
    layout = dict(values.pop("layout", {}) or {})
    hdf5 = dict(values.pop("hdf5", {}) or {})
    for parameter in space.parameters:
        value = configuration[parameter.name]
        if value is None:
            continue
        if parameter.name in BENCHMARK_FIELDS:
            values[parameter.name] = value
        elif is_layout_parameter(parameter):
            layout[parameter.name] = str(value)
        elif is_hdf5_parameter(parameter):
            hdf5[parameter.name] = value
        elif key := hint_key(parameter):
            hints[key] = check_hint_value(key, hint_value(value))
        elif parameter.env:
            env[parameter.env] = hint_value(value) if isinstance(value, bool) else str(value)
    env = check_environment(env, f"the spec of space {space.name!r}")
    try:
        layout = check_layout(layout)
    except LayoutError as error:
        raise SpaceError(f"configuration {configuration.describe()}: {error}") from None
    try:
        hdf5 = check_hdf5(hdf5)
    except Hdf5SettingError as error:
        raise SpaceError(f"configuration {configuration.describe()}: {error}") from None
    spec = BenchmarkSpec(**values, hints=hints, env=env, layout=layout, hdf5=hdf5)
    if spec.api == "POSIX" and hints:
        raise SpaceError(
            f"configuration {configuration.describe()}: MPI-IO hints {sorted(hints)} are set with api=POSIX, which "
            "never reads them; make those parameters conditional with when: \"api == 'MPIIO'\""
        )
    if spec.api == "POSIX" and spec.collective:
        raise SpaceError(f"configuration {configuration.describe()}: collective I/O needs api=MPIIO")
    if spec.api == "HDF5" and spec.file_per_process and (hints or spec.collective):
        raise SpaceError(f"configuration {configuration.describe()}: with a file per process HDF5 writes through its "
                         "POSIX driver, which takes no MPI-IO hints and no collective transfer")
    check_spec(spec)
    return spec


def check_spec(spec: BenchmarkSpec) -> None:
    """Refuse impossible combinations of benchmark fields (the runner's own rules), in one line."""
    problem = spec.problem()
    if problem is None and spec.api == "HDF5":
        problem = settings_problem(spec)
    if problem:
        raise SpaceError(problem)


def hints_of(space, configuration: Mapping[str, Any]) -> dict[str, str]:
    """MPI_Info key -> value of the active hint parameters of ``configuration``, in the space's order."""
    hints = {}
    for parameter in space.parameters:
        key = hint_key(parameter)
        value = configuration.get(parameter.name)
        if key and value is not None:
            hints[key] = hint_value(value)
    return hints


def layout_of(space, configuration: Mapping[str, Any]) -> dict[str, str]:
    """The file layout (stripe_count, stripe_unit, ...) the active layout parameters of ``configuration`` set."""
    return {p.name: str(configuration.get(p.name)) for p in space.parameters
            if is_layout_parameter(p) and configuration.get(p.name) is not None}


def env_of(space, configuration: Mapping[str, Any]) -> dict[str, str]:
    """Environment variables set by ``env:`` parameters of ``configuration``."""
    env = {}
    for parameter in space.parameters:
        value = configuration.get(parameter.name)
        if parameter.env and value is not None and not hint_key(parameter):
            env[parameter.env] = hint_value(value)
    return env

