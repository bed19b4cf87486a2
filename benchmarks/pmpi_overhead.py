"""What iotune's PMPI library costs an application: seconds per MPI-IO call with and without it preloaded.

One rank opens a file and makes ``--calls`` small ``MPI_File_write_at`` calls (``--size`` bytes each), timing the
loop itself (``MPI_Wtime``), and opens and closes a file ``--opens`` times (the library sets its hints on each
open's info, here none, as hints change what an open costs, and reads the hints in effect back on rank 0); runs
with and without the library alternate (``--pairs`` pairs, in ABBA order), so both see the same machine. Prints
the median seconds per call of each and the difference (paper 001 measured its framework's overhead on one
process: 0.02 s per open, 0.2 s per write).

    .venv/bin/python benchmarks/pmpi_overhead.py [--pairs 10] [--calls 20000] [--size 4096] [--opens 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from iotune.apply.pmpi import HINTS_VARIABLE, OUT_VARIABLE, library

MPIEXEC = str(Path(sys.executable).parent / "mpiexec")
LOOP = """
import json, sys
import numpy as np
from mpi4py import MPI
path, calls, size, opens = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
data = np.zeros(size, dtype=np.uint8)
fh = MPI.File.Open(MPI.COMM_SELF, path, MPI.MODE_CREATE | MPI.MODE_WRONLY)
begin = MPI.Wtime()
for i in range(calls):
    fh.Write_at((i % 256) * size, data)
write = (MPI.Wtime() - begin) / calls
fh.Close()
begin = MPI.Wtime()
for i in range(opens):
    MPI.File.Open(MPI.COMM_SELF, f"{path}.{i % 8}", MPI.MODE_CREATE | MPI.MODE_WRONLY).Close()
print(json.dumps({"write": write, "open_close": (MPI.Wtime() - begin) / opens}))
"""


def run(script: Path, work: Path, args, lib: Path | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("ROMIO_HINTS", "LD_PRELOAD")}
    if lib is not None:  # no hints: hints change what an open costs (ROMIO sizes its buffers by them)
        env.update({"LD_PRELOAD": str(lib), OUT_VARIABLE: str(work / "pmpi.json")})
        env.pop(HINTS_VARIABLE, None)
    done = subprocess.run([MPIEXEC, "-n", "1", sys.executable, str(script), str(work / "f"), str(args.calls),
                           str(args.size), str(args.opens)], env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--opens", type=int, default=200)
    args = parser.parse_args()
    lib = library([MPIEXEC])
    load = os.getloadavg()
    without: list[dict] = []
    with_lib: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="iotune-pmpi-overhead-") as scratch:
        work = Path(scratch)
        script = work / "loop.py"
        script.write_text(LOOP)
        for pair in range(args.pairs):  # ABBA: neither always runs first
            for preload in ((None, lib) if pair % 2 == 0 else (lib, None)):
                (with_lib if preload else without).append(run(script, work, args, preload))
    for what in ("write", "open_close"):
        plain = statistics.median(r[what] for r in without)
        preloaded = statistics.median(r[what] for r in with_lib)
        print(f"{what:>10}: {plain * 1e6:9.2f} us without, {preloaded * 1e6:9.2f} us with the library "
              f"(median of {args.pairs}); difference {(preloaded - plain) * 1e6:+.2f} us per call "
              f"({preloaded / plain:.3f}x)")
    print(f"{args.calls} writes of {args.size} B, {args.opens} open+close, one rank; load average before "
          f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, after {os.getloadavg()[0]:.1f}; {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
