"""Parallel HDF5 as scripts/install-hdf5 sets it up: Debian's HDF5 running on the venv's MPICH.

Debian's libhdf5-mpich links libmpich.so.12, the mpich wheel ships libmpi.so.12: the install relies on the two
sharing MPICH's ABI and on h5py loading only the venv's library.  This writes a real file collectively with 2
ranks under the project's own launcher and checks both.
"""

import json
import os
import subprocess
import sys

import pytest

from iotune.bench.world import LOOPBACK_ENV, find_mpiexec, local_launcher

pytestmark = [pytest.mark.requires_mpi, pytest.mark.requires_h5py_mpi]

SCRIPT = r"""
import json, sys
import numpy as np
import h5py
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
path = sys.argv[1]
with h5py.File(path, "w", driver="mpio", comm=comm) as f:
    dset = f.create_dataset("x", (size * 1000,), dtype="i8")
    with dset.collective:
        dset[rank * 1000:(rank + 1) * 1000] = np.arange(1000) + 7 * rank
comm.Barrier()
with h5py.File(path, "r", driver="mpio", comm=comm) as f:
    ok = bool((f["x"][:] == np.concatenate([np.arange(1000) + 7 * r for r in range(size)])).all())
maps = {line.split()[-1] for line in open("/proc/self/maps") if ".so" in line}
mpi_libs = sorted(p for p in maps if "/libmpi" in p)
with open(f"{path}.rank{rank}.json", "w") as out:  # a file each: two ranks printing at once share a line
    json.dump({"rank": rank, "ok": ok, "mpi_libs": mpi_libs, "hdf5": h5py.version.hdf5_version,
               "library": MPI.Get_library_version().splitlines()[0]}, out)
"""


def test_collective_hdf5_write_runs_on_the_venvs_mpich_alone(tmp_path):
    script = tmp_path / "write.py"
    script.write_text(SCRIPT)
    launcher = local_launcher(find_mpiexec())
    done = subprocess.run([launcher, "-n", "2", sys.executable, str(script), str(tmp_path / "out.h5")],
                          capture_output=True, text=True, timeout=120, env={**LOOPBACK_ENV, **os.environ})
    assert done.returncode == 0, done.stderr[-2000:]
    ranks = [json.loads((tmp_path / f"out.h5.rank{rank}.json").read_text()) for rank in (0, 1)]
    assert sorted(r["rank"] for r in ranks) == [0, 1]
    assert all(r["ok"] for r in ranks), "the file read back differs from what the ranks wrote"
    venv_lib = os.path.realpath(os.path.join(sys.prefix, "lib", "libmpi.so.12"))
    for rank in ranks:
        # one MPI library per process, the venv's: Debian's libmpich.so.12 resolved to it, not loaded beside it
        assert rank["mpi_libs"] == [venv_lib], rank["mpi_libs"]
    assert (tmp_path / "out.h5").stat().st_size >= 2 * 1000 * 8


def test_the_install_script_returns_at_once_when_parallel_h5py_is_there():
    script = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "install-hdf5")
    done = subprocess.run(["bash", script, sys.prefix], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "parallel h5py already in" in done.stdout
