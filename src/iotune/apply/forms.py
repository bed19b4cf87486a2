"""The forms MPI-IO hints take for an application: ROMIO hints files, Cray MPICH's variable, IOR's, Lustre striping.

Which parameters are hints, and their values, come from
:func:`iotune.spec.mapping.hints_of`, so a recommendation is applied exactly as
the benchmark that measured it applied it.  ``striping_unit`` is in bytes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from iotune.errors import SpaceError
from iotune.spec.mapping import check_hint_value
from iotune.units import format_size

HINT_NAME = re.compile(r"[A-Za-z0-9_]{1,255}")

STRIPING_FACTOR = "striping_factor"
STRIPING_UNIT = "striping_unit"


def checked(hints: Mapping[str, str]) -> dict[str, str]:
    """``hints`` if every key is a hint name and every value one hint's (:func:`check_hint_value`), else SpaceError:
    values come from stores and imports too, and must not add hints of their own in any of these forms."""
    for key, value in hints.items():
        if not HINT_NAME.fullmatch(str(key)):
            raise SpaceError(f"{str(key)[:40]!r} is not an MPI-IO hint name (letters, digits and _ only)")
        check_hint_value(key, str(value))
    return {str(key): str(value) for key, value in hints.items()}


def romio_hints_file(hints: Mapping[str, str]) -> str:
    """Text of a ROMIO hints file (``ROMIO_HINTS=FILE``): one ``key value`` line per hint."""
    return "".join(f"{key} {value}\n" for key, value in checked(hints).items())


def mpich_mpiio_hints(hints: Mapping[str, str], pattern: str = "*") -> str:
    """Value of ``MPICH_MPIIO_HINTS`` (Cray MPICH): ``pattern:key=value:key=value``; empty when no hints.

    A value holding ``:`` or ``,`` (``cb_config_list=*:*``), which separate hints and groups there, is left
    out of this form; the ROMIO hints file and IOR's variables carry it.
    """
    kept = {key: value for key, value in checked(hints).items() if not set(value) & set(":,")}
    return ":".join([pattern, *(f"{key}={value}" for key, value in kept.items())]) if kept else ""


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
