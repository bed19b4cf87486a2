"""Which environment variables data may set: an allow-list, plus the names the user allows at run time.

A spec, a stored study or an export received from someone else can name
environment variables (``env:`` parameters, ``benchmark: env:``) that iotune
sets for the benchmark or the application.  Some variables run code or write
files wherever they point (``LD_PRELOAD``, ``PATH``, ``BASH_FUNC_mpiexec%%``,
``PYTHONPATH``, ``HDF5_PLUGIN_PATH``, ``DARSHAN_LOGFILE`` ...), so data may set
only the variables of :data:`SAFE_FAMILIES`, each listed with why it is safe.
Anything else needs the user, at run time: ``--allow-env NAME`` (``iotune run``,
``iotune space validate``) or ``IOTUNE_ALLOW_ENV=NAME,NAME`` in the environment
(every command).  Nothing inside a spec, store or export can allow a name.

Names must be shell-style identifiers; values must be strings without NUL, at
most :data:`MAX_VALUE` characters.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from iotune.errors import IotuneError, SpaceError
from iotune.space.parameter import ENV_NAME

ALLOW_VARIABLE = "IOTUNE_ALLOW_ENV"
MAX_NAME = 255
MAX_VALUE = 65_536


class UnsafeEnvironmentError(IotuneError, PermissionError):
    """Data asks to set an environment variable that is neither known to be safe nor allowed by the user."""


@dataclass(frozen=True)
class EnvFamily:
    """Variables named ``prefix*`` (or exactly ``name``), safe for the reason ``why``.

    A name of a prefix family is still refused when it contains one of
    :data:`RISKY_WORDS`: within these families such names point at files,
    directories, libraries or debuggers.
    """

    pattern: str
    why: str
    excluded: tuple[str, ...] = ()

    def matches(self, name: str) -> bool:
        if name in self.excluded:
            return False
        if self.pattern.endswith("*"):
            prefix = self.pattern[:-1]
            return name.startswith(prefix) and not any(word in name[len(prefix):] for word in RISKY_WORDS)
        return name == self.pattern


RISKY_WORDS = ("FILE", "DIR", "PATH", "LIB", "EXEC", "PLUGIN", "PRELOAD", "MODULE", "COMPONENT", "LOG", "DBG",
               "DEBUG", "CONFIG", "PREFIX", "SCRIPT", "CMD", "COMMAND")
"""Words that exclude a name from a prefix family (``MPIR_CVAR_NAMEPUB_DIR`` writes files wherever it points,
``MPICH_MPIIO_STATS_FILE`` too, ``MPIR_CVAR_DBG_FILENAME`` opens a log file, ``DARSHAN_LOGPATH`` and
``DARSHAN_LOGFILE`` choose where Darshan writes, ``DXT_TRIGGER_CONF_PATH`` reads a file)."""

SAFE_FAMILIES: tuple[EnvFamily, ...] = (
    EnvFamily("ROMIO_*", "ROMIO (MPICH's MPI-IO) reads ROMIO_FSTYPE_FORCE (one of its own drivers), "
                         "ROMIO_PRINT_HINTS and its aggregation switches; none loads code or writes a file. "
                         "ROMIO_HINTS names a file ROMIO reads (as root: any file): iotune writes and sets it "
                         "from hints itself, data may not", excluded=("ROMIO_HINTS",)),
    EnvFamily("MPICH_MPIIO_*", "Cray MPICH's MPI-IO settings (MPICH_MPIIO_HINTS, _HINTS_DISPLAY, _STATS, _TIMERS, "
                               "_CB_ALIGN, _AGGREGATOR_PLACEMENT_*): hints and report switches"),
    EnvFamily("MPIR_CVAR_*", "MPICH control variables: numbers, switches and choices among MPICH's own algorithms "
                             "(collectives, progress threads, shared memory); those naming files or directories "
                             "are excluded by the risky words"),
    EnvFamily("MPICH_*", "the MPICH_ spelling of the same control variables (MPICH reads MPIR_CVAR_X, MPICH_X "
                         "and MPIR_PARAM_X alike), with the same exclusions"),
    EnvFamily("MPIR_PARAM_*", "the older MPIR_PARAM_ spelling of MPICH's control variables"),
    EnvFamily("OMPI_MCA_io_*", "Open MPI's MPI-IO framework selection and parameters (ompio or romio)"),
    EnvFamily("OMPI_MCA_fs_*", "Open MPI OMPIO's file system components (ufs, lustre, gpfs) and their parameters"),
    EnvFamily("OMPI_MCA_fbtl_*", "Open MPI OMPIO's byte-transfer layer parameters"),
    EnvFamily("OMPI_MCA_fcoll_*", "Open MPI OMPIO's collective I/O algorithms (two-phase, vulcan, dynamic) "
                                  "and their buffer sizes"),
    EnvFamily("OMPI_MCA_sharedfp_*", "Open MPI OMPIO's shared file pointer components"),
    EnvFamily("IOR_HINT__*", "IOR passes IOR_HINT__MPI__<key>=<value> to MPI_File_open as an MPI-IO hint "
                             "(IOR_HINT__GPFS__ to GPFS); Lustre striping reaches ROMIO this way too, as the "
                             "striping_factor and striping_unit hints, since Lustre itself reads no variables"),
    EnvFamily("DARSHAN_*", "Darshan's run-time switches (DARSHAN_DISABLE, DARSHAN_ENABLE_NONMPI, "
                           "DARSHAN_MOD_DISABLE/ENABLE, DARSHAN_MODMEM, DARSHAN_NAMEMEM); where it writes "
                           "(LOGPATH, LOGFILE) is excluded by the risky words"),
    EnvFamily("DXT_*", "Darshan's extended tracing switches (DXT_ENABLE_IO_TRACE)"),
    EnvFamily("HDF5_USE_FILE_LOCKING", "HDF5's file locking switch (FALSE on parallel file systems without "
                                       "flock); HDF5's other variables load plugins or prefix file names"),
    EnvFamily("PNETCDF_HINTS", "PnetCDF's MPI-IO hints, 'key=value;key=value'"),
    EnvFamily("PNETCDF_SAFE_MODE", "PnetCDF's consistency checks on or off"),
)


def check_name(name: object, what: str = "environment variable") -> str:
    """``name`` if it is a well-formed variable name (letters, digits, underscores, not starting with a digit)."""
    if not isinstance(name, str) or not ENV_NAME.match(name) or len(name) > MAX_NAME:
        raise SpaceError(f"{what} name {name!r} is malformed: use letters, digits and underscores, not starting "
                         "with a digit (no '=', spaces, '%' or NUL)")
    return name


def check_value(name: str, value: object) -> str:
    """``value`` if it is a string a variable can hold: no NUL, at most :data:`MAX_VALUE` characters."""
    if not isinstance(value, str):
        raise SpaceError(f"environment variable {name}: value {value!r} is not a string")
    if "\x00" in value or len(value) > MAX_VALUE:
        raise SpaceError(f"environment variable {name}: value {value[:40]!r}... holds a NUL character or is "
                         f"longer than {MAX_VALUE} characters")
    return value


def is_known_safe(name: str) -> bool:
    """True when a family of :data:`SAFE_FAMILIES` covers ``name``."""
    return any(family.matches(name) for family in SAFE_FAMILIES)


def user_allowed(environ: Mapping[str, str] | None = None, extra: Iterable[str] = ()) -> frozenset[str]:
    """Names the user allows at run time: ``IOTUNE_ALLOW_ENV`` (comma, colon or space separated) and ``extra``."""
    environ = os.environ if environ is None else environ
    names = [n for n in re.split(r"[,:\s]+", environ.get(ALLOW_VARIABLE, "")) if n]
    names += [n for item in extra for n in re.split(r"[,:\s]+", str(item)) if n]
    for name in names:
        check_name(name, f"{ALLOW_VARIABLE} / --allow-env")
    return frozenset(names)


def refused_names(names: Iterable[str], allowed: Iterable[str] | None = None) -> list[str]:
    """The names among ``names`` that are neither known safe nor in ``allowed`` (default: :func:`user_allowed`)."""
    allowed = user_allowed() if allowed is None else frozenset(allowed)
    return sorted({n for n in names if n not in allowed and not is_known_safe(n)})


def check_environment(env: Mapping[str, object], where: str, allowed: Iterable[str] | None = None) -> dict[str, str]:
    """``env`` as str -> str when every name is well formed and allowed, else one line naming the first refused.

    ``where`` says whose data asks (``"study 'x'"``, ``"spec.yaml"``) in the message.
    """
    out = {}
    for name, value in env.items():
        check_name(name)
        out[name] = check_value(name, value)
    refused = refused_names(out, allowed)
    if refused:
        first = refused[0]
        more = f" (and {', '.join(refused[1:4])}{'...' if len(refused) > 4 else ''})" if len(refused) > 1 else ""
        raise UnsafeEnvironmentError(
            f"{where} sets environment variable {first}{more}, which is not on iotune's list of safe variables "
            f"(MPI-IO, ROMIO, MPICH, Open MPI I/O, IOR hints, Darshan, HDF5 locking, PnetCDF hints); if you trust "
            f"whoever wrote it, allow it with --allow-env {first} or {ALLOW_VARIABLE}={first}")
    return out
