"""Apply a configuration to the environment of a command (paper 001, Fig. 2: the tuning module).

Paper 001's tuning module sets the chosen hints before the application's
MPI-IO calls, transparently; here they reach the application through every
channel an MPI library or IOR reads: a ROMIO hints file (``ROMIO_HINTS``),
``MPICH_MPIIO_HINTS`` (Cray syntax), ``IOR_HINT__MPI__*``, plus ``env:``
parameters and ``lfs setstripe`` for Lustre directories.  Hints the user
already set in any of these keep their value unless ``override=True``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from iotune.apply.applied import Applied
from iotune.apply.forms import lfs_setstripe, mpich_mpiio_hints, romio_hints_file
from iotune.apply.user_settings import (
    IOR_PREFIX,
    ApplyError,
    format_mpich_hints,
    parse_mpich_hints,
    user_hints,
)
from iotune.spec.environment import check_environment, user_allowed
from iotune.spec.mapping import env_of, hints_of

HINTS_FILE = "romio-hints"


def _mpich_value(environ: Mapping[str, str], chosen: dict[str, str], kept: set[str], merged: dict[str, str]) -> str:
    """User groups kept (minus overridden keys), then one ``*`` group with the configuration's other hints."""
    groups = [(pattern, {k: v for k, v in hints.items() if k not in chosen or k in kept})
              for pattern, hints in parse_mpich_hints(environ.get("MPICH_MPIIO_HINTS", ""))]
    ours = {k: v for k, v in chosen.items() if k not in kept}
    if not groups:
        return mpich_mpiio_hints(merged)
    return format_mpich_hints([*groups, ("*", ours)])


def apply_configuration(space, configuration: Mapping[str, Any], directory: str | Path, *,
                        environ: Mapping[str, str] | None = None, override: bool = False,
                        lustre_dir: str | Path | None = None, run_lfs: bool = False,
                        allow_env: Iterable[str] = ()) -> Applied:
    """Apply a configuration of ``space``: its MPI-IO hints and ``env:`` parameters (:func:`apply_settings`)."""
    return apply_settings(hints_of(space, configuration), env_of(space, configuration), directory, environ=environ,
                          override=override, lustre_dir=lustre_dir, run_lfs=run_lfs, allow_env=allow_env,
                          where=f"space {space.name!r}")


def apply_settings(chosen: Mapping[str, str], variables: Mapping[str, str], directory: str | Path, *,
                   environ: Mapping[str, str] | None = None, override: bool = False,
                   lustre_dir: str | Path | None = None, run_lfs: bool = False,
                   allow_env: Iterable[str] = (), where: str = "the configuration") -> Applied:
    """Write the ROMIO hints file in ``directory`` and return the variables, files and commands that apply it.

    ``chosen`` are MPI-IO hints (key -> value), ``variables`` environment
    variables to set.  ``environ`` (default ``os.environ``) is where the user's
    own settings are read.  ``lustre_dir`` adds an ``lfs setstripe`` command for
    the striping hints; it runs only when ``run_lfs`` and ``lfs`` is on PATH.
    Every variable must be known safe or allowed by the user (``allow_env``, or
    ``IOTUNE_ALLOW_ENV`` in ``environ``; :mod:`iotune.spec.environment`), else
    nothing is applied.
    """
    environ = os.environ if environ is None else environ
    variables = check_environment(variables, where, user_allowed(environ, allow_env))
    chosen = dict(chosen)
    user = user_hints(environ)
    applied = Applied(chosen=dict(chosen))
    merged = {key: value for key, (value, _where) in user.items()}
    for key, value in chosen.items():
        if key in user and user[key][0] != value:
            target = applied.overridden if override else applied.kept
            target[key] = user[key][0]
            applied.sources[key] = user[key][1]
            if not override:
                continue
        merged[key] = value
    applied.hints = merged
    kept = set(applied.kept)
    if merged:
        path = Path(directory) / HINTS_FILE
        path.write_text(romio_hints_file(merged), encoding="utf-8")
        applied.files.append(str(path))
        applied.env["ROMIO_HINTS"] = str(path)
        applied.env["MPICH_MPIIO_HINTS"] = _mpich_value(environ, chosen, kept, merged)
    for key, value in chosen.items():
        if key not in kept:
            applied.env[f"{IOR_PREFIX}{key}"] = value
    for name, value in variables.items():
        if name in environ and environ[name] != value:
            target = applied.overridden if override else applied.kept
            target[name] = environ[name]
            applied.sources[name] = "environment"
            if not override:
                continue
        applied.env[name] = value
    if lustre_dir is not None:
        command = lfs_setstripe(merged, shlex.quote(str(lustre_dir)))
        if command:
            applied.commands.append(command)
            if run_lfs:
                _run_lfs(command, applied)
    return applied


def _run_lfs(command: str, applied: Applied) -> None:
    if shutil.which("lfs") is None:
        return
    done = subprocess.run(shlex.split(command), capture_output=True, text=True)
    if done.returncode != 0:
        raise ApplyError(f"{command}: {(done.stderr or done.stdout).strip() or f'exit status {done.returncode}'}")
    applied.ran.append(command)
