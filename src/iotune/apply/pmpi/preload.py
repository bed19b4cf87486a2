"""Put iotune's PMPI library in front of a command: its hints file and result path, and the hints only there.

With the library preloaded, the configuration's hints reach the application
at ``MPI_File_open`` through the library alone: the ROMIO hints file,
``MPICH_MPIIO_HINTS`` and ``IOR_HINT__MPI__*`` that
:func:`iotune.apply.settings.apply_settings` would add are left out of the
environment (the user's own stay as they are).  The library sets the hints the
configuration chose, except those the user had set and keeps (``Applied.kept``:
without ``--override`` the user's value wins, as everywhere else).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path

from iotune.apply.applied import Applied
from iotune.apply.forms import romio_hints_file
from iotune.apply.pmpi import HINTS_VARIABLE, OUT_VARIABLE
from iotune.apply.settings import HINTS_FILE as ROMIO_HINTS_FILE
from iotune.apply.user_settings import IOR_PREFIX

HINTS_FILE = "iotune-pmpi-hints"
RESULT_FILE = "iotune-pmpi.json"


def at_open(applied: Applied, directory: Path) -> Applied:
    """``applied`` with its hints given to the PMPI library (a hints file in ``directory``) instead of the
    environment's channels."""
    ours = {key: value for key, value in applied.chosen.items() if key not in applied.kept}
    env = {name: value for name, value in applied.env.items()
           if name not in ("ROMIO_HINTS", "MPICH_MPIIO_HINTS") and not name.startswith(IOR_PREFIX)}
    hints_file = Path(directory) / HINTS_FILE
    hints_file.write_text(romio_hints_file(ours), encoding="utf-8")
    env[HINTS_VARIABLE] = str(hints_file)
    files = [f for f in applied.files if Path(f).name != ROMIO_HINTS_FILE] + [str(hints_file)]
    return Applied(env=env, hints=applied.hints, chosen=applied.chosen, files=files, kept=applied.kept,
                   overridden=applied.overridden, sources=applied.sources, commands=applied.commands, ran=applied.ran)


def preloaded(environ: Mapping[str, str], library: Path, log_dir: Path) -> tuple[dict[str, str], Path]:
    """``environ`` with ``library`` first in ``LD_PRELOAD`` and a result path in a new directory under
    ``log_dir`` (the scratch directory, which the node of rank 0 sees too), and that path."""
    out = Path(tempfile.mkdtemp(prefix="iotune-pmpi-", dir=log_dir)) / RESULT_FILE
    env = dict(environ)
    preload = env.get("LD_PRELOAD", "")
    env["LD_PRELOAD"] = f"{library}:{preload}" if preload else str(library)
    env[OUT_VARIABLE] = str(out)
    return env, out
