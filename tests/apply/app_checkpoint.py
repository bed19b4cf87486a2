"""A small MPI application for the tests: write and read back a checkpoint with MPI-IO collectively.

Usage: ``mpiexec -n N python app_checkpoint.py PATH [EXIT_STATUS]``.  Rank 0
prints, as JSON on stdout, the hints in effect (``MPI_File_get_info``), and
appends them as one JSON line to the file ``APP_HINTS_LOG`` names, if set.
"""

import json
import os
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
count = 1 << 16
data = np.full(count, rank, dtype=np.int64)
fh = MPI.File.Open(comm, sys.argv[1], MPI.MODE_CREATE | MPI.MODE_RDWR)
fh.Write_at_all(rank * data.nbytes, data)
fh.Sync()
back = np.empty_like(data)
fh.Read_at_all(rank * data.nbytes, back)
info = fh.Get_info()
hints = {key: info.Get(key) for key in (info.Get_nthkey(i) for i in range(info.Get_nkeys()))}
fh.Close()
assert np.array_equal(back, data)
if rank == 0:
    print(json.dumps(hints), flush=True)
    if os.environ.get("APP_HINTS_LOG"):
        with open(os.environ["APP_HINTS_LOG"], "a") as log:
            log.write(json.dumps(hints) + "\n")
sys.exit(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
