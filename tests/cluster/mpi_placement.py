"""Run under MPI: rank 0 writes where every rank ran, as JSON, to the path given as argument.

Each rank reports its rank, the world size, SLURMD_NODENAME (the virtual node whose
slurmd started it), the host name and its pid; an Allreduce of the ranks proves the
ranks form one world that can talk (the sum must be size * (size - 1) / 2).
"""

import json
import os
import socket
import sys

from mpi4py import MPI

world = MPI.COMM_WORLD
me = {
    "rank": world.Get_rank(),
    "size": world.Get_size(),
    "node": os.environ.get("SLURMD_NODENAME"),
    "host": socket.gethostname(),
    "pid": os.getpid(),
}
everyone = world.gather(me)
rank_sum = world.allreduce(world.Get_rank(), op=MPI.SUM)
if world.Get_rank() == 0:
    with open(sys.argv[1], "w") as handle:
        json.dump({"ranks": everyone, "rank_sum": rank_sum}, handle)
