"""Controller side of a persistent MPI world of benchmark workers.

Starting mpiexec and Python for every trial costs a large fraction of a second;
a :class:`WorkerWorld` starts ``mpiexec -n P python -m iotune.bench.worker``
once and sends it one request per trial over a Unix-domain socket in a private
temporary directory.  When a rank dies, the world hangs past the timeout or
mpiexec exits, the whole process tree is killed, the trial is reported as
FAILED with the tail of the workers' stderr, and the next trial starts a new
world.

A world leaves nothing behind: its socket directory is named by its owner and
removed (stale ones of dead owners on this host too), and the shared-memory
and hwloc files MPICH keeps only until MPI_Finalize are removed when the world
is killed (:mod:`iotune.bench.mpi_temp`).  A world of one node (the default)
has all its ranks on this host, so it is launched so that nothing listens on a
network address other than loopback (:func:`local_launcher`,
:data:`LOOPBACK_ENV`).

A world of several nodes (``nodes`` > 1: a worker inside a Slurm allocation of
that many nodes) is launched by the given ``mpiexec`` itself (MPICH's hydra,
which starts its proxies on the allocation's nodes with ``srun``), and its
ranks talk over the network.  Each rank reports its owner (:mod:`iotune.owner`)
and its node; the controller judges only the ranks of its own host through
/proc (dead ranks, orphans to kill, MPI files to remove), since a pid of
another host means nothing here.  A rank on another host that dies is noticed
by hydra, which then ends the world, or at worst by the request's timeout.
Rank 0 always shares the controller's host: it talks to it over a Unix socket.
"""

from __future__ import annotations

import filecmp
import functools
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import weakref
from pathlib import Path

from iotune.bench import mpi_temp
from iotune.bench.ownership import current_owner, remove_stale
from iotune.errors import BenchError, MpiNotFoundError
from iotune.owner import local_pid, owner_is_dead, process_owner
from iotune.records import BenchmarkSpec, Measurement
from iotune.shield import shielded

SOCKET_PATH_MAX = 107  # bytes of sun_path before its terminating NUL (Linux: 108)
STARTUP_TIMEOUT = 60.0
CONTROLLER_ENV = "IOTUNE_CONTROLLER_OWNER"
STDERR_TAIL = 400
WORLD_PREFIX = "iotune-world-"
# The network layers of MPICH's ch4 netmods listen on every interface unless told otherwise:
# UCX's TCP transport on each network device, libfabric's tcp/sockets providers on the first one.
LOOPBACK_ENV = {"UCX_NET_DEVICES": "lo", "FI_TCP_IFACE": "lo", "FI_SOCKETS_IFACE": "lo"}


def find_mpiexec(mpiexec: str | os.PathLike | None = None) -> str:
    """Path of mpiexec: the argument, else the one beside ``sys.executable`` (a venv's bin), else PATH."""
    if mpiexec is not None:
        found = shutil.which(str(mpiexec))
        if found:
            return found
        raise MpiNotFoundError(f"mpiexec {str(mpiexec)!r} not found or not executable; pip install mpich mpi4py")
    beside = Path(sys.executable).parent / "mpiexec"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("mpiexec")
    if found:
        return found
    raise MpiNotFoundError("mpiexec not found beside the Python interpreter or on PATH; pip install mpich mpi4py")


MPICH_HOST_NAME_LIMIT = 64


def check_host_name() -> None:
    """BenchError when MPICH cannot start here: its MPI_Init fails on a host name of 64 characters or more
    ("gethostname failed, File name too long"), so every trial would fail the same way."""
    name = socket.gethostname()
    if len(name) >= MPICH_HOST_NAME_LIMIT:
        raise BenchError(f"this host's name is {len(name)} characters ({name[:20]}...); MPICH's MPI_Init fails on "
                         f"{MPICH_HOST_NAME_LIMIT} or more: give the host a shorter name (hostname, or run iotune "
                         "in a UTS namespace: unshare --uts)")


@functools.lru_cache(maxsize=8)
def local_launcher(mpiexec: str) -> str:
    """The launcher for a world whose ranks all run on this host.

    Hydra's mpiexec listens for its proxies on all interfaces (0.0.0.0) whatever
    ``-iface``, ``-localhost``, ``-hosts`` or HYDRA_IFACE say (MPICH 5.0.2: the
    control socket is bound to INADDR_ANY).  MPICH's gforker process manager,
    installed beside it as ``mpiexec.gforker``, forks the ranks itself and talks PMI
    over socket pairs, so it listens on nothing.  Returns gforker when ``mpiexec``
    is hydra under a generic name (``mpiexec``, ``mpirun``: a copy of or a link to
    the ``mpiexec.hydra`` beside it), else ``mpiexec`` unchanged: a wrapper script,
    another MPI, or hydra asked for by its own name ``mpiexec.hydra``.
    """
    real = Path(os.path.realpath(mpiexec))
    hydra, gforker = real.parent / "mpiexec.hydra", real.parent / "mpiexec.gforker"
    if Path(mpiexec).name == hydra.name or not (hydra.is_file() and os.access(gforker, os.X_OK)):
        return str(mpiexec)
    # pip's mpich installs mpiexec, mpirun and mpiexec.hydra as copies, not links
    if real == hydra or filecmp.cmp(real, hydra, shallow=False):
        return str(gforker)
    return str(mpiexec)


def control_address(directory: Path) -> str:
    """Where a world's control socket listens: ``control.sock`` in the world's directory when that path fits in
    a Unix socket address, else (a long TMPDIR, as clusters give per job) the Linux abstract socket named
    after the directory, written ``@name``.  Both are checked the same way: only a peer of our own uid is
    accepted (:func:`peer_uid`), since an abstract socket has no file permissions."""
    path = str(directory / "control.sock")
    return path if len(os.fsencode(path)) <= SOCKET_PATH_MAX else "@" + directory.name


def socket_address(address: str) -> str:
    """The address to bind or connect to: a leading ``@`` stands for the abstract namespace's NUL byte."""
    return "\0" + address[1:] if address.startswith("@") else address


def peer_uid(connection: socket.socket) -> int:
    """The user id of the process at the other end of a Unix socket (SO_PEERCRED)."""
    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", credentials)[1]


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    return children


def process_tree(root: int) -> list[int]:
    """``root`` and all its descendants (hydra puts each proxy and rank in its own process group)."""
    children = _children_map()
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


def kill_tree(pids: list[int]) -> None:
    """SIGKILL the process group of each pid (never our own group)."""
    own = os.getpgrp()
    for pid in pids:
        try:
            group = os.getpgid(pid)
            if group != own:
                os.killpg(group, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _is_worker(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return b"iotune.bench.worker" in handle.read()
    except OSError:
        return False


def dead_local_ranks(owners: list[str]) -> list[int]:
    """Ranks (by index) that provably died: those of this host whose process is gone.

    A rank of another host is never reported here (its pid means nothing in
    this host's /proc); hydra or the request's timeout notices it instead.
    """
    return [rank for rank, owner in enumerate(owners) if owner_is_dead(owner)]


def _tail(path: Path, limit: int = STDERR_TAIL) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " | ".join(lines)[-limit:]


class WorldSetupError(BenchError):
    """This process cannot set up a world at all (its control socket): no trial can run, none is to blame."""


class WorkerWorld:
    """A running ``mpiexec -n processes`` world of iotune workers, reused across trials.

    ``timeout`` is the limit in seconds for one request (one trial).  ``nodes``
    is how many nodes its ranks span (1: this host only; more: the nodes of the
    Slurm allocation it runs in, see the module docstring).  The world is
    started on the first request and restarted after a failure.  Use it as a
    context manager or call :meth:`close`; a finalizer (also run at exit) closes forgotten ones.
    """

    def __init__(
        self,
        processes: int,
        mpiexec: str | os.PathLike | None = None,
        python: str = sys.executable,
        env: dict[str, str] | None = None,
        timeout: float = 600.0,
        nodes: int = 1,
    ):
        if processes < 1:
            raise BenchError(f"a worker world needs at least 1 process, got {processes}")
        if nodes < 1:
            raise BenchError(f"a worker world runs on at least 1 node, got {nodes}")
        self.processes = processes
        self.nodes = nodes
        self.mpiexec = find_mpiexec(mpiexec)
        self.python = python
        self.env = dict(env or {})
        self.timeout = timeout
        self.mpi_library = ""
        self._buffer = b""
        self._st: dict = {"proc": None, "sock": None, "dir": None, "pids": [], "owners": [], "nodes": [],
                          "files": set()}
        self._finalizer = weakref.finalize(self, WorkerWorld._cleanup, self._st)

    @property
    def pids(self) -> list[int]:
        """Process ids of the ranks of the running world, rank order (empty before start), on their own hosts."""
        return list(self._st["pids"])

    @property
    def local_pids(self) -> list[int]:
        """Process ids of the running ranks on this host (those a signal or /proc can reach)."""
        return [pid for pid in map(local_pid, self._st["owners"]) if pid is not None]

    @property
    def owners(self) -> list[str]:
        """Owner (``host:pid:boot:start``) of each rank of the running world, rank order."""
        return list(self._st["owners"])

    @property
    def rank_nodes(self) -> list[str]:
        """The node each rank runs on (Slurm's node name inside a job, else the host name), rank order."""
        return list(self._st["nodes"])

    @property
    def _proc(self) -> subprocess.Popen | None:
        return self._st["proc"]

    @property
    def _sock(self) -> socket.socket | None:
        return self._st["sock"]

    @property
    def _dir(self) -> Path | None:
        return self._st["dir"]

    def __enter__(self) -> WorkerWorld:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        """Start mpiexec and wait for rank 0's hello (raises BenchError on failure)."""
        self.close()
        remove_stale(Path(tempfile.gettempdir()), WORLD_PREFIX)  # of controllers that died here (SIGKILL)
        with shielded():  # a signal between mkdtemp and the assignment would leave the directory
            directory = self._st["dir"] = Path(tempfile.mkdtemp(prefix=WORLD_PREFIX + current_owner().tag))
        address = control_address(directory)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(socket_address(address))
            listener.listen(1)
        except OSError as exc:
            listener.close()
            raise WorldSetupError(f"cannot listen on the worker world's control socket {address}: "
                                  f"{exc.strerror or exc}") from None
        local = {} if self.nodes > 1 else LOOPBACK_ENV  # ranks on several nodes talk over the network
        env = {**local, **os.environ, **self.env, CONTROLLER_ENV: process_owner()}
        src = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
        launcher = self.mpiexec if self.nodes > 1 else local_launcher(self.mpiexec)
        command = [launcher, "-n", str(self.processes), self.python, "-m", "iotune.bench.worker", address]
        with open(directory / "stderr.txt", "wb") as errors, shielded():  # else a signal could orphan mpiexec
            proc = self._st["proc"] = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=errors, stderr=errors, env=env, start_new_session=True
            )
        deadline = time.monotonic() + STARTUP_TIMEOUT
        try:
            listener.settimeout(0.1)
            while self._sock is None:
                try:
                    connection, _ = listener.accept()
                    if peer_uid(connection) == os.geteuid():
                        self._st["sock"] = connection
                    else:  # another user found the abstract socket
                        connection.close()
                except TimeoutError:
                    if proc.poll() is not None:
                        status = f"mpiexec exited with status {proc.returncode} at startup"
                        raise BenchError(self._why(status)) from None
                    if time.monotonic() > deadline:
                        raise BenchError(self._why(f"workers did not connect within {STARTUP_TIMEOUT:.0f} s")) from None
            hello = self._receive(STARTUP_TIMEOUT)
        except BaseException:
            self.kill()
            raise
        finally:
            listener.close()
        self._st["pids"] = list(hello.get("pids", []))
        self._st["owners"] = list(hello.get("owners", []))
        self._st["nodes"] = list(hello.get("nodes", []))
        self._st["files"] |= mpi_temp.held_by_any(process_tree(proc.pid) + self.local_pids)
        self.mpi_library = hello.get("mpi_library", "")

    def _why(self, what: str) -> str:
        tail = _tail(self._dir / "stderr.txt") if self._dir else ""
        return f"{what}; worker stderr: {tail or '(empty)'}"

    def _connection(self) -> tuple[subprocess.Popen, socket.socket]:
        """mpiexec and the socket to rank 0 of the running world."""
        proc, sock = self._proc, self._sock
        if proc is None or sock is None:
            raise BenchError("the worker world is not running")
        return proc, sock

    def _receive(self, timeout: float) -> dict:
        proc, sock = self._connection()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BenchError(self._why(f"no reply from the workers within {timeout:g} s (hung rank?)"))
            sock.settimeout(min(remaining, 0.5))
            try:
                chunk = sock.recv(1 << 16)
            except TimeoutError:
                if proc.poll() is not None:
                    raise BenchError(self._why(f"mpiexec exited with status {proc.returncode}")) from None
                # hydra sometimes misses a rank that died early and leaves the others waiting in a collective
                dead = dead_local_ranks(self._st["owners"])
                if dead:
                    raise BenchError(self._why(f"rank {dead[0]} exited while the others were still running")) from None
                continue
            except OSError as exc:
                raise BenchError(self._why(f"lost the connection to the workers ({exc})")) from None
            if not chunk:
                try:  # long enough for the launcher to report the ranks' exit codes on a busy machine
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
                status = proc.poll()
                raise BenchError(self._why(f"workers closed the connection (mpiexec status {status})"))
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def request(self, message: dict, timeout: float | None = None) -> dict:
        """Send one request and return the reply; starts the world if needed.

        Any failure (dead rank, timeout, mpiexec exit, error reply) kills the
        world and raises BenchError with one line that includes the stderr tail.
        """
        if not self.alive or self._sock is None:
            self.start()
        try:
            self._connection()[1].sendall((json.dumps(message) + "\n").encode())
            reply = self._receive(self.timeout if timeout is None else timeout)
        except OSError as exc:
            error = BenchError(self._why(f"lost the connection to the workers ({exc})"))
            self.kill()
            raise error from None
        except BenchError:
            self.kill()
            raise
        if not reply.get("ok"):
            error = BenchError(self._why(f"worker error: {reply.get('error')}"))
            if reply.get("fatal"):
                self.kill()
            raise error
        return reply

    def ping(self) -> list[int]:
        """Round trip through all ranks; returns the rank pids."""
        return self.request({"op": "ping"}, timeout=min(self.timeout, STARTUP_TIMEOUT))["pids"]

    def run(self, spec: BenchmarkSpec, directory: Path, cache_mode: str = "auto") -> Measurement:
        """Run one trial in ``directory``; a failure comes back as a FAILED Measurement, never raised, except
        :class:`WorldSetupError`: a world that cannot be set up here is no fault of the trial's."""
        if spec.processes != self.processes:
            return Measurement.failed(
                f"spec asks for {spec.processes} processes but this world has {self.processes}"
            )
        message = {"op": "run", "spec": spec.to_dict(), "dir": str(directory), "cache_mode": cache_mode}
        try:
            reply = self.request(message)
        except WorldSetupError:
            raise
        except BenchError as exc:
            return Measurement.failed(str(exc), hints_requested=dict(spec.hints))
        measurement = Measurement.from_dict(reply["measurement"])
        measurement.extra["mpi_library"] = self.mpi_library
        measurement.extra["nodes"] = self.rank_nodes
        return measurement

    def close(self) -> None:
        """Ask the workers to exit, then kill whatever is left and remove the socket directory."""
        proc, sock = self._proc, self._sock
        if proc is not None and sock is not None and proc.poll() is None:
            try:
                sock.sendall(b'{"op": "exit"}\n')
                proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def kill(self) -> None:
        """Kill mpiexec, its proxies and the ranks at once and remove the socket directory."""
        WorkerWorld._cleanup(self._st)
        self._buffer = b""

    @staticmethod
    def _cleanup(state: dict) -> None:
        """Kill mpiexec, its proxies and the ranks, close the socket, remove the directory and MPI's files."""
        with shielded():
            WorkerWorld._cleanup_now(state)

    @staticmethod
    def _cleanup_now(state: dict) -> None:
        proc, sock, directory = state["proc"], state["sock"], state["dir"]
        if sock is not None:
            sock.close()
        files = set(state["files"])
        if proc is not None:
            tree = process_tree(proc.pid) if proc.poll() is None else []
            # Ranks orphaned by a dead mpiexec are no longer in its tree; kill those of this host by pid.
            alive_here = [local_pid(owner) for owner in state["owners"]]
            orphans = [pid for pid in alive_here if pid is not None and pid not in tree and _is_worker(pid)]
            files |= mpi_temp.held_by_any(tree + orphans)
            kill_tree(tree[::-1] + orphans)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        mpi_temp.remove(files)
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)
        state.update(proc=None, sock=None, dir=None, pids=[], owners=[], nodes=[], files=set())
