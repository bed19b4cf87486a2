"""An MPI-IO checkpoint kernel of iotune's own: every rank writes its share of a checkpoint file per step.

Usage: ``mpiexec -n N python checkpoint_mpiio.py PATH [--steps S] [--piece BYTES] [--pieces K] [--sleep SECONDS]
[--mode collective|independent|nonblocking] [--log FILE]``.

Each step creates ``PATH.<step>`` and writes ``K`` pieces of ``BYTES`` per rank, interleaved across ranks (piece i
of rank r at offset ``(i * N + r) * BYTES``, through a file view), as a solver's checkpoint of a distributed array
does; ``collective`` uses ``MPI_File_write_all``, ``independent`` ``MPI_File_write``, ``nonblocking``
``MPI_File_iwrite_all`` and a wait. The last checkpoint is read back collectively and checked. Before its first
checkpoint it sleeps ``SECONDS`` (the computation, which an I/O objective must leave out). Rank 0 appends one JSON
line to ``--log``: the MPI-IO variables of its environment, the hints in effect on the last file, the bytes it
wrote and read.
"""

import argparse
import json
import os
import time

import numpy as np
from mpi4py import MPI

parser = argparse.ArgumentParser()
parser.add_argument("path")
parser.add_argument("--steps", type=int, default=2)
parser.add_argument("--piece", type=int, default=4096)
parser.add_argument("--pieces", type=int, default=64)
parser.add_argument("--sleep", type=float, default=0.0)
parser.add_argument("--mode", choices=("collective", "independent", "nonblocking"), default="collective")
parser.add_argument("--log")
args = parser.parse_args()

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
piece = MPI.BYTE.Create_contiguous(args.piece).Commit()
view = piece.Create_vector(args.pieces, 1, size).Commit()
data = np.full(args.pieces * args.piece, rank % 251, dtype=np.uint8)
time.sleep(args.sleep)
for step in range(args.steps):
    fh = MPI.File.Open(comm, f"{args.path}.{step}", MPI.MODE_CREATE | MPI.MODE_RDWR)
    fh.Set_view(rank * args.piece, MPI.BYTE, view)
    if args.mode == "collective":
        fh.Write_all(data)
    elif args.mode == "independent":
        fh.Write(data)
    else:
        fh.Iwrite_all(data).Wait()
    fh.Sync()
    if step == args.steps - 1:
        back = np.empty_like(data)
        fh.Seek(0)
        fh.Read_all(back)
        assert np.array_equal(back, data), "the checkpoint read back differs"
        info = fh.Get_info()
        in_effect = {key: info.Get(key) for key in (info.Get_nthkey(i) for i in range(info.Get_nkeys()))}
    fh.Close()
if rank == 0 and args.log:
    with open(args.log, "a") as log:
        log.write(json.dumps({"env": {k: v for k, v in os.environ.items()
                                      if k in ("ROMIO_HINTS", "MPICH_MPIIO_HINTS") or k.startswith("IOR_HINT__")},
                              "in_effect": in_effect, "bytes_written": args.steps * size * data.nbytes,
                              "bytes_read": size * data.nbytes, "files": args.steps}) + "\n")
