"""How to apply a recommended configuration: MPI-IO hints in the forms ROMIO, Cray MPICH and IOR read, and Lustre striping.

Which parameters are hints follows :mod:`iotune.bench.mapping` (``hint_key`` /
``hint_value``), so a recommendation is applied exactly as the benchmark that
measured it applied it.  ``striping_unit`` is in bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from iotune.bench.mapping import hint_key, hint_value
from iotune.units import format_size

STRIPING_FACTOR = "striping_factor"
STRIPING_UNIT = "striping_unit"


def hints_of(space, configuration: Mapping[str, Any]) -> dict[str, str]:
    """MPI_Info key -> value of the active hint parameters of ``configuration``, in the space's order."""
    hints = {}
    for parameter in space.parameters:
        key = hint_key(parameter)
        value = configuration.get(parameter.name)
        if key and value is not None:
            hints[key] = hint_value(value)
    return hints


def env_of(space, configuration: Mapping[str, Any]) -> dict[str, str]:
    """Environment variables set by ``env:`` parameters of ``configuration``."""
    env = {}
    for parameter in space.parameters:
        value = configuration.get(parameter.name)
        if parameter.env and value is not None and not hint_key(parameter):
            env[parameter.env] = hint_value(value)
    return env


def romio_hints_file(hints: Mapping[str, str]) -> str:
    """Text of a ROMIO hints file (``ROMIO_HINTS=FILE``): one ``key value`` line per hint."""
    return "".join(f"{key} {value}\n" for key, value in hints.items())


def mpich_mpiio_hints(hints: Mapping[str, str], pattern: str = "*") -> str:
    """Value of ``MPICH_MPIIO_HINTS`` (Cray MPICH): ``pattern:key=value:key=value``; empty when no hints."""
    return ":".join([pattern, *(f"{key}={value}" for key, value in hints.items())]) if hints else ""


def ior_env(hints: Mapping[str, str]) -> list[str]:
    """``IOR_HINT__MPI__key=value`` lines, which IOR passes to ``MPI_File_open``."""
    return [f"IOR_HINT__MPI__{key}={value}" for key, value in hints.items()]


def lfs_setstripe(hints: Mapping[str, str], directory: str = "DIR") -> str | None:
    """``lfs setstripe -c N -S SIZE DIR`` from the striping hints, or None when there are none.

    Files created in ``directory`` afterwards inherit the layout, which also
    covers POSIX runs that never read MPI-IO hints.
    """
    parts = ["lfs", "setstripe"]
    if STRIPING_FACTOR in hints:
        parts += ["-c", str(hints[STRIPING_FACTOR])]
    if STRIPING_UNIT in hints:
        parts += ["-S", format_size(int(hints[STRIPING_UNIT]), "lfs")]
    return " ".join([*parts, directory]) if len(parts) > 2 else None
