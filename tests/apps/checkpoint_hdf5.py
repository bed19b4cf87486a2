"""An HDF5 checkpoint kernel of iotune's own, in the spirit of h5bench's VPIC-IO write pattern: every rank writes
its particles' variables, a few 1-D datasets, into one shared HDF5 file per step (parallel h5py over MPI-IO).

Usage: ``mpiexec -n N python checkpoint_hdf5.py PATH [--steps S] [--particles P] [--variables V] [--sleep SECONDS]
[--independent] [--log FILE]``.

Step s creates ``PATH.<s>.h5`` with V float32 datasets of ``N x P`` elements (``x``, ``y``, ``z``, ``px``, ...);
rank r writes elements ``[r P, (r + 1) P)`` of each, collectively unless ``--independent``. The last file is read
back and checked. Before its first step it sleeps ``SECONDS`` (the computation). Rank 0 appends one JSON line to
``--log``: the MPI-IO variables of its environment and the bytes of data written and read.
"""

import argparse
import json
import os
import time

import h5py
import numpy as np
from mpi4py import MPI

NAMES = ("x", "y", "z", "px", "py", "pz", "id1", "id2")

parser = argparse.ArgumentParser()
parser.add_argument("path")
parser.add_argument("--steps", type=int, default=2)
parser.add_argument("--particles", type=int, default=1 << 15)
parser.add_argument("--variables", type=int, default=len(NAMES), choices=range(1, len(NAMES) + 1))
parser.add_argument("--sleep", type=float, default=0.0)
parser.add_argument("--independent", action="store_true")
parser.add_argument("--log")
args = parser.parse_args()

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
mine = slice(rank * args.particles, (rank + 1) * args.particles)
values = {name: np.arange(args.particles, dtype=np.float32) + rank * args.particles + i
          for i, name in enumerate(NAMES[:args.variables])}
time.sleep(args.sleep)
for step in range(args.steps):
    with h5py.File(f"{args.path}.{step}.h5", "w", driver="mpio", comm=comm) as f:
        for name, data in values.items():
            dataset = f.create_dataset(name, (size * args.particles,), dtype="f4")
            if args.independent:
                dataset[mine] = data
            else:
                with dataset.collective:
                    dataset[mine] = data
with h5py.File(f"{args.path}.{args.steps - 1}.h5", "r", driver="mpio", comm=comm) as f:
    for name, data in values.items():
        assert np.array_equal(f[name][mine], data), f"dataset {name} read back differs"
if rank == 0 and args.log:
    data_bytes = size * args.particles * 4 * args.variables
    with open(args.log, "a") as log:
        log.write(json.dumps({"env": {k: v for k, v in os.environ.items()
                                      if k in ("ROMIO_HINTS", "MPICH_MPIIO_HINTS") or k.startswith("IOR_HINT__")},
                              "bytes_written": args.steps * data_bytes, "bytes_read": data_bytes,
                              "files": args.steps}) + "\n")
