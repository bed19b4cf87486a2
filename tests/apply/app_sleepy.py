"""An MPI application that computes (sleeps) 1 s, then writes 4 MiB per rank with MPI-IO and prints how long that took.

Usage: ``mpiexec -n N python app_sleepy.py PATH``.  Rank 0 prints
``write time: SECONDS s`` (the slowest rank's write, open to close) and
``write bandwidth: MIB_PER_S MiB/s``, as IOR and h5bench print their own
figures; its wall time is mostly start-up and the sleep.
"""

import sys
import time

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
time.sleep(1.0)
data = np.full(1 << 19, rank, dtype=np.int64)  # 4 MiB
comm.Barrier()
begin = MPI.Wtime()
fh = MPI.File.Open(comm, sys.argv[1], MPI.MODE_CREATE | MPI.MODE_WRONLY)
fh.Write_at_all(rank * data.nbytes, data)
fh.Sync()
fh.Close()
elapsed = comm.reduce(MPI.Wtime() - begin, op=MPI.MAX)
if rank == 0:
    print(f"write time: {elapsed:.6f} s", flush=True)
    print(f"write bandwidth: {comm.Get_size() * data.nbytes / (1 << 20) / elapsed:.3f} MiB/s", flush=True)
