"""Rank side of the persistent worker world: ``python -m iotune.bench.worker <socket address>``.

Rank 0 connects to the controller's Unix-domain socket and reads
newline-delimited JSON requests; every request is broadcast to all ranks.
Requests: ``{"op": "run", "spec": {...}, "dir": "...", "cache_mode": "auto"}``,
``{"op": "ping"}`` and ``{"op": "exit"}``.  Replies are one JSON line each:
``{"ok": true, ...}`` or ``{"ok": false, "error": "..."}``.  A rank that
fails writes one line to stderr and aborts the world, because the other ranks
may be blocked in a collective call that would never return.

Test hooks, honoured only when set in the environment: IOTUNE_TEST_CRASH_RANK=r
makes rank r exit with status 3 on each run request, IOTUNE_TEST_HANG_RANK=r
makes it sleep forever.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from iotune.bench import mpi_temp
from iotune.bench.kernel import run_kernel, summarise
from iotune.bench.world import CONTROLLER_ENV, socket_address
from iotune.owner import host_name, owner_is_dead, process_owner
from iotune.records import BenchmarkSpec


def _test_hooks(rank: int) -> None:
    if os.environ.get("IOTUNE_TEST_CRASH_RANK") == str(rank):
        os._exit(3)
    if os.environ.get("IOTUNE_TEST_HANG_RANK") == str(rank):
        time.sleep(10**6)


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".replace("\n", " ")


class _Channel:
    """Rank 0's newline-delimited JSON connection to the controller."""

    def __init__(self, path: str):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(socket_address(path))
        self.reader = self.sock.makefile("r", encoding="utf-8")
        self.closed = False

    def send(self, message: dict) -> None:
        """Reply; a controller that died (SIGKILL) mid-trial turns the next request into ``exit``."""
        try:
            self.sock.sendall((json.dumps(message) + "\n").encode())
        except OSError:
            self.closed = True

    def receive(self) -> dict:
        if self.closed:
            return {"op": "exit"}
        try:
            line = self.reader.readline()
        except OSError:
            line = ""
        return json.loads(line) if line else {"op": "exit"}


def _exit_when_orphaned(interval: float = 1.0) -> None:
    """Leave at once when the controller or this rank's launcher dies.

    A rank spinning in a collective whose peer died never reads its socket
    again, so only a watchdog can end it after the controller was SIGKILLed.
    Only ranks on the controller's host can see it die (rank 0 always can);
    ranks on other hosts leave when hydra, seeing rank 0 gone, ends their
    proxy, their parent.  Leaving without MPI_Finalize, a rank first removes
    the shared-memory files it maps, which nobody else would (the controller
    that would is gone).
    """
    controller = os.environ.get(CONTROLLER_ENV, "")
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(interval)
            if os.getppid() != parent or owner_is_dead(controller):
                mpi_temp.remove_own()
                os._exit(1)

    threading.Thread(target=watch, name="iotune-orphan-watchdog", daemon=True).start()


def _wait_for_all(comm, longest_pause: float = 0.002) -> None:
    """Meet the other ranks without spinning.

    MPICH busy-polls inside a blocking collective, so ranks waiting in
    ``bcast`` for the next trial would each burn a core between trials and slow
    whatever else runs on the node (the controller, the store, other
    benchmarks).  A non-blocking barrier tested with pauses growing from 50 us
    to ``longest_pause`` seconds costs almost no CPU and adds at most that
    much latency per trial.
    """
    request = comm.Ibarrier()
    pause = 0.00005
    while not request.Test():
        time.sleep(pause)
        pause = min(2 * pause, longest_pause)


def serve(socket_path: str) -> None:
    """Serve requests until ``exit`` or until the controller goes away."""
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    node_comm = comm.Split_type(MPI.COMM_TYPE_SHARED)
    pids = comm.gather(os.getpid())
    owners = comm.gather(process_owner())
    nodes = comm.gather(os.environ.get("SLURMD_NODENAME") or host_name())
    channel = _Channel(socket_path) if rank == 0 else None
    if channel:
        channel.send(
            {
                "ok": True,
                "event": "hello",
                "processes": comm.Get_size(),
                "pids": pids,
                "owners": owners,
                "nodes": nodes,
                "mpi_library": " ".join(MPI.Get_library_version().splitlines()[0].split()),
            }
        )
    while True:
        message = channel.receive() if channel else None
        _wait_for_all(comm)
        request = comm.bcast(message)
        op = request.get("op")
        if op == "exit":
            break
        try:
            if op == "ping":
                reply: dict[str, Any] = {"ok": True, "pids": pids}
            elif op == "run":
                _test_hooks(rank)
                spec = BenchmarkSpec.from_dict(request["spec"])
                record = run_kernel(comm, node_comm, spec, Path(request["dir"]), request.get("cache_mode", "auto"))
                records = comm.gather(record)  # None on every rank but 0
                reply = {"ok": True, "measurement": summarise(spec, records) if records is not None else None}
            else:
                reply = {"ok": False, "error": f"unknown request {op!r} (allowed: run, ping, exit)"}
        except Exception as exc:  # noqa: BLE001 - any failure must reach the controller as one line
            failure = f"rank {rank}: {_one_line(exc)}"
            print(f"iotune worker {failure}", file=sys.stderr, flush=True)
            if os.environ.get("IOTUNE_WORKER_DEBUG"):
                traceback.print_exc()
            if channel:
                channel.send({"ok": False, "error": failure, "fatal": True})
            comm.Abort(1)
        if channel:
            channel.send(reply)
    node_comm.Free()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m iotune.bench.worker <control socket path>", file=sys.stderr)
        return 2
    # gforker stops the other ranks with SIGINT when one fails: die quietly, as a C rank would, so the
    # stderr tail the controller reports shows the launcher's "Return code" lines, not a Python traceback
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    _exit_when_orphaned()
    serve(argv[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
