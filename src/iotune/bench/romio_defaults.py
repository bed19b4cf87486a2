"""The MPI-IO hints an application runs with when it sets none: ROMIO's defaults, as ``MPI_File_get_info``
reports them for a file opened with ``MPI_INFO_NULL`` in the scratch directory (the baseline "what the user runs
today" of ``iotune tune --baseline romio``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from iotune.errors import IotuneError

_PROBE = """
import json, os, sys
from mpi4py import MPI
path = os.path.join(sys.argv[1], f"iotune-romio-defaults-{os.getpid()}")
handle = MPI.File.Open(MPI.COMM_SELF, path, MPI.MODE_CREATE | MPI.MODE_WRONLY | MPI.MODE_DELETE_ON_CLOSE)
info = handle.Get_info()
hints = {info.Get_nthkey(i): info.Get(info.Get_nthkey(i)) for i in range(info.Get_nkeys())}
info.Free()
handle.Close()
print(json.dumps(hints))
"""


def romio_defaults(scratch: Path, python: str = sys.executable, timeout: float = 60.0) -> dict[str, str]:
    """Hint -> value ROMIO uses in ``scratch`` when none is set (one MPI process: hints that depend on the process
    count, such as ``cb_nodes``, are those of one node).  IotuneError when MPI cannot open a file there."""
    try:
        done = subprocess.run([python, "-c", _PROBE, str(scratch)], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise IotuneError(f"cannot read ROMIO's default hints in {scratch}: {error}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise IotuneError(f"cannot read ROMIO's default hints in {scratch}: {last}")
    try:
        hints = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise IotuneError(f"cannot read ROMIO's default hints in {scratch}: no answer from MPI") from None
    return {str(k): str(v) for k, v in hints.items()}
