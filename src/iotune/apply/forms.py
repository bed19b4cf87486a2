"""The forms MPI-IO hints take for an application: ROMIO hints files, Cray MPICH's variable, IOR's, Lustre striping.

Which parameters are hints, and their values, come from
:func:`iotune.spec.mapping.hints_of`, so a recommendation is applied exactly as
the benchmark that measured it applied it.  ``striping_unit`` is in bytes.
"""

from __future__ import annotations

from collections.abc import Mapping

from iotune.units import format_size

STRIPING_FACTOR = "striping_factor"
STRIPING_UNIT = "striping_unit"


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
