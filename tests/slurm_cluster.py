"""A throwaway Slurm cluster of virtual nodes on this host, for tests (a pytest plugin).

Slurm 22.05 from Debian (``slurm-wlm``, ``munge``) runs as one ``munged`` with its
own key and socket, one ``slurmctld`` and one ``slurmd -N nK`` per virtual node,
each on its own TCP port on 127.0.0.1, all configured, logged and spooled in one
temporary directory that is removed at the end.  Nothing system-wide is read or
written: the daemons get ``-f <our slurm.conf>``, clients get ``SLURM_CONF`` in
:attr:`SlurmCluster.env`, and slurm.conf's ``AuthInfo`` points every part at our
munge socket.  Without slurmdbd there is no ``sacct``; see
:meth:`SlurmCluster.job_states` for how to follow a job.

Fixtures: ``slurm_cluster`` (session scope, a running :class:`SlurmCluster`) and
``slurm`` (the same cluster, with every job cancelled after the test).  Tests
that use them are skipped, with the reason, where the binaries are missing or
the tests do not run as root; mark them ``requires_slurm``.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

DAEMONS = ("munged", "mungekey", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "srun", "salloc", "squeue", "scancel", "sinfo", "scontrol")
START_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0
PARTITION = "iotune"
# Job states after which a job (or array task) runs nothing any more (squeue's long names).
FINISHED_STATES = frozenset(
    {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE",
     "OUT_OF_MEMORY", "REVOKED", "SPECIAL_EXIT"}
)
# Variables of an enclosing Slurm job or of the user's defaults that would steer our clients elsewhere.
FOREIGN_PREFIXES = ("SLURM_", "SBATCH_", "SALLOC_", "SRUN_", "SQUEUE_", "SINFO_", "SCANCEL_", "SCONTROL_")
MARKER = "IOTUNE_TEST_SLURM_ROOT"
OWNER = "owner"
# Seconds a finished job stays visible to squeue/scontrol (Slurm's default: 300).
MIN_JOB_AGE = 3600
# Seconds between the SIGTERM and the SIGKILL that scancel or a time limit sends (Slurm's default: 30).
KILL_WAIT = 2


class SlurmStartError(RuntimeError):
    """The cluster did not come up; the message carries the tail of the daemons' logs."""


def slurm_problem() -> str | None:
    """Why a Slurm cluster cannot be started here, or None."""
    missing = [name for name in DAEMONS + CLIENTS if shutil.which(name, path=_sbin_path()) is None]
    if missing:
        return f"Slurm or MUNGE missing ({', '.join(missing)}): apt-get install slurm-wlm munge"
    if os.geteuid() != 0:
        return "a local Slurm cluster needs root (its slurmd runs jobs as their submitter)"
    return None


def _sbin_path() -> str:
    return os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])


def _which(name: str) -> str:
    return shutil.which(name, path=_sbin_path()) or name


def _free_ports(count: int) -> list[int]:
    """``count`` distinct TCP ports that were free on 127.0.0.1 a moment ago (another process may still
    take one before a daemon binds it: :func:`start_slurm_cluster` retries with new ports)."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _die_with_parent() -> None:
    """In the child before exec: get SIGTERM when the test process dies, even by SIGKILL (prctl(2))."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def _tail(path: Path, lines: int = 8) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(text[-lines:])


def _environ_of(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


@dataclass
class SlurmCluster:
    """A running cluster: where it lives and how to talk to it.

    ``env`` is the environment for Slurm clients and for everything submitted
    (``sbatch`` passes the submitter's environment to the job): the test
    process's own, less any ``SLURM_*``/``SBATCH_*``/... variables, plus
    ``SLURM_CONF``.  ``munge_socket`` is only needed to call ``munge`` itself
    (``munge -S``); Slurm finds it through slurm.conf.
    """

    root: Path
    nodes: tuple[str, ...]
    cpus_per_node: int
    partition: str
    env: dict[str, str]
    ports: dict[str, int]
    _daemons: dict[str, subprocess.Popen] = field(default_factory=dict, repr=False)

    @property
    def conf(self) -> Path:
        return self.root / "slurm.conf"

    @property
    def munge_socket(self) -> Path:
        return self.root / "munge" / "munge.socket"

    @property
    def jobcomp(self) -> Path:
        """jobcomp/filetxt's file: one line per finished job or array task (JobId, JobState, ExitCode...)."""
        return self.root / "log" / "jobcomp.txt"

    def log(self, daemon: str) -> Path:
        """Log file of ``slurmctld``, ``munged`` or a node's slurmd (``n1``...)."""
        return self.root / "log" / (f"slurmd.{daemon}.log" if daemon in self.nodes else f"{daemon}.log")

    # clients

    def run(self, *args, timeout: float = 120.0, check: bool = True, cwd: str | os.PathLike | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        """Run a command (a Slurm client, usually) in this cluster's environment; text output captured.

        ``env`` adds to :attr:`env`.  With ``check``, a non-zero exit fails the test with stderr's tail.
        """
        result = subprocess.run(
            [str(arg) for arg in args], capture_output=True, text=True, timeout=timeout, cwd=cwd,
            env={**self.env, **(env or {})}, stdin=subprocess.DEVNULL,
        )
        if check and result.returncode != 0:
            tail = (result.stderr or result.stdout).strip()[-800:]
            raise AssertionError(f"{' '.join(map(str, args))} exited with {result.returncode}: {tail}")
        return result

    def sbatch(self, *options, script: str | None = None, cwd: str | os.PathLike | None = None,
               env: dict[str, str] | None = None) -> str:
        """Submit a batch job and return its id (``"17"``; an array's tasks are ``"17_0"``...).

        ``options`` go to sbatch (``"--array=0-2"``, ``"-N3"``, a script path...); ``script`` is the
        text of a batch script (with its ``#!`` line) given on standard input instead of a path.
        """
        args = [_which("sbatch"), "--parsable", f"--partition={self.partition}", *options]
        result = subprocess.run(
            [str(arg) for arg in args], input=script, capture_output=True, text=True, timeout=120, cwd=cwd,
            env={**self.env, **(env or {})},
        )
        if result.returncode != 0:
            raise AssertionError(f"sbatch failed ({result.returncode}): {result.stderr.strip()[-800:]}")
        return result.stdout.strip().split(";")[0]

    def srun(self, *args, timeout: float = 120.0, check: bool = True, cwd=None,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        """``srun --partition=<ours> *args``: a job step in a new allocation (or in the enclosing one)."""
        return self.run(_which("srun"), f"--partition={self.partition}", *args, timeout=timeout, check=check,
                        cwd=cwd, env=env)

    def scancel(self, *job_ids: str) -> None:
        """Cancel jobs (or array tasks, ``"17_1"``); already finished ones are not an error."""
        if job_ids:
            self.run(_which("scancel"), *job_ids, check=False)

    def cancel_all(self, timeout: float = 60.0) -> None:
        """Cancel every job of the partition and wait until none is left running or pending."""
        self.run(_which("scancel"), f"--partition={self.partition}", check=False)
        deadline = time.monotonic() + timeout
        while self.active_jobs() and time.monotonic() < deadline:
            time.sleep(0.2)

    def active_jobs(self) -> list[str]:
        """Ids of jobs and array tasks not yet finished (pending, running, completing...)."""
        result = self.run(_which("squeue"), "-h", "-r", f"--partition={self.partition}", "-o", "%i", check=False)
        return result.stdout.split() if result.returncode == 0 else []

    def job_states(self, job_id: str) -> dict[str, str]:
        """State of each task of a job as slurmctld knows it, e.g. ``{"17_0": "RUNNING", "17_1": "PENDING"}``.

        There is no accounting (``sacct`` says "Slurm accounting storage is disabled"), so this asks
        slurmctld: ``squeue --states=all -r -j ID``.  A finished job keeps its final state (COMPLETED,
        FAILED, CANCELLED, TIMEOUT...: :data:`FINISHED_STATES`) for MinJobAge seconds (an hour here,
        300 s by default); after that slurmctld forgets it and this returns ``{}``.  The exit code of a
        job still known is in ``scontrol show job -o ID`` (``ExitCode=2:0``); jobcomp/filetxt keeps a
        line per finished job for good (:attr:`jobcomp`).
        """
        result = self.run(_which("squeue"), "-h", "-r", "--states=all", "-j", job_id, "-o", "%i|%T", check=False)
        if result.returncode != 0:
            if "Invalid job id" in result.stderr:
                return {}
            raise AssertionError(f"squeue failed: {result.stderr.strip()}")
        states = {}
        for line in result.stdout.splitlines():
            task, _, state = line.strip().partition("|")
            if task:
                states[task] = state
        return states

    def wait_for(self, job_id: str, predicate, timeout: float = 120.0, what: str = "") -> dict[str, str]:
        """Poll :meth:`job_states` until ``predicate(states)`` is true; return the states.

        On timeout the test fails with the last states seen.
        """
        deadline = time.monotonic() + timeout
        while True:
            states = self.job_states(job_id)
            if predicate(states):
                return states
            if time.monotonic() > deadline:
                raise AssertionError(f"job {job_id}: {what or 'condition'} not reached in {timeout:g} s: {states}")
            time.sleep(0.1)

    def wait_finished(self, job_id: str, tasks: int = 1, timeout: float = 120.0) -> dict[str, str]:
        """Wait until ``tasks`` tasks of the job are known and all have finished; return their states."""
        return self.wait_for(
            job_id,
            lambda states: len(states) >= tasks and all(s in FINISHED_STATES for s in states.values()),
            timeout, f"{tasks} finished task(s)",
        )

    def wait_running(self, job_id: str, tasks: int = 1, timeout: float = 120.0) -> dict[str, str]:
        """Wait until ``tasks`` tasks of the job are RUNNING; return the states."""
        return self.wait_for(
            job_id, lambda states: sum(s == "RUNNING" for s in states.values()) >= tasks, timeout,
            f"{tasks} running task(s)",
        )

    def node_states(self) -> dict[str, str]:
        """``{"n1": "idle", ...}`` from sinfo (``idle``, ``mix``, ``alloc``, ``down*``...)."""
        result = self.run(_which("sinfo"), "-h", "-N", f"--partition={self.partition}", "-o", "%N %t",
                          check=False, timeout=30)
        return dict(line.split() for line in result.stdout.splitlines() if len(line.split()) == 2)

    def logs(self) -> str:
        """The tail of every daemon's log, for failure messages."""
        parts = [f"{name}: {_tail(self.log(name))}" for name in ("munged", "slurmctld", *self.nodes)]
        return "\n".join(parts)

    # life cycle

    def stop(self) -> None:
        """Cancel all jobs, stop the daemons, kill whatever they left (steps, tasks), remove the directory."""
        ctld = self._daemons.get("slurmctld")
        if ctld is not None and ctld.poll() is None:
            try:
                self.cancel_all(timeout=10.0)
            except (subprocess.SubprocessError, OSError):
                pass
        for name in (*self.nodes, "slurmctld"):
            _terminate(self._daemons.get(name))
        _kill_strays(self.root)
        _terminate(self._daemons.get("munged"))
        _kill_strays(self.root)
        self._daemons.clear()
        shutil.rmtree(self.root, ignore_errors=True)


def _terminate(process: subprocess.Popen | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=STOP_TIMEOUT)


def _kill_strays(root: Path) -> None:
    """SIGKILL every process of this cluster still alive: slurmstepd (it carries the daemons' MARKER)
    and job tasks (their SLURM_CONF is ours), e.g. a task that left its step's process tree."""
    needles = (f"{MARKER}={root}\0".encode(), f"SLURM_CONF={root / 'slurm.conf'}\0".encode())
    for _ in range(5):
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) != os.getpid():
                environ = _environ_of(int(entry))
                if any(needle in environ for needle in needles):
                    found.append(int(entry))
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.2)


def _started(pid: int) -> str | None:
    """Start time of a process (clock ticks since boot, /proc/PID/stat field 22), None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _base_dir() -> Path:
    base = tempfile.gettempdir()
    # munge and slurmstepd put Unix sockets in here: keep paths far below the 107-byte limit.
    return Path(base if len(base) < 40 else "/tmp")


def remove_abandoned_clusters() -> list[Path]:
    """Kill the processes of, and remove, clusters whose test process died without stopping them.

    A SIGKILLed test process takes its daemons along (they get SIGTERM through PR_SET_PDEATHSIG), but
    not the steps and tasks of running jobs nor the directory; each cluster's OWNER file names the
    process (pid and start time) that started it.  Returns the directories removed.
    """
    removed = []
    for root in sorted(_base_dir().glob("iotune-slurm-*")):
        try:
            pid, started = (root / OWNER).read_text().split()
        except (OSError, ValueError):
            continue
        if _started(int(pid)) != started:
            _kill_strays(root)
            shutil.rmtree(root, ignore_errors=True)
            removed.append(root)
    return removed


def _slurm_conf(root: Path, hostname: str, nodes: tuple[str, ...], cpus: int, ports: dict[str, int]) -> str:
    lines = [
        f"ClusterName=iotune{ports['slurmctld']}",
        f"SlurmctldHost={hostname}(127.0.0.1)",
        f"SlurmctldPort={ports['slurmctld']}",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={root / 'munge' / 'munge.socket'}",
        f"StateSaveLocation={root / 'state'}",
        f"SlurmdSpoolDir={root / 'spool'}/%n",
        f"SlurmctldPidFile={root / 'run' / 'slurmctld.pid'}",
        f"SlurmdPidFile={root / 'run'}/slurmd.%n.pid",
        f"SlurmctldLogFile={root / 'log' / 'slurmctld.log'}",
        f"SlurmdLogFile={root / 'log'}/slurmd.%n.log",
        f"PlugStackConfig={root / 'plugstack.conf'}",
        "MailProg=/bin/true",
        # No cgroups: processes are tracked by parentage, tasks are not bound (works in any VM or container).
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "JobCompType=jobcomp/filetxt",
        f"JobCompLoc={root / 'log' / 'jobcomp.txt'}",
        "SwitchType=switch/none",
        "MpiDefault=none",
        "SchedulerType=sched/builtin",
        # Schedule a submitted batch job at the next pass of slurmctld's 1 s loop, not up to 3 s later.
        "SchedulerParameters=batch_sched_delay=0",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core",
        # Take the node sizes below as given: three nodes share this host's cores.
        "SlurmdParameters=config_overrides",
        "ReturnToService=2",
        f"MinJobAge={MIN_JOB_AGE}",
        f"KillWait={KILL_WAIT}",
        "MessageTimeout=30",
        "SlurmctldDebug=info",
        "SlurmdDebug=info",
    ]
    for node in nodes:
        lines.append(
            f"NodeName={node} NodeHostname={hostname} NodeAddr=127.0.0.1 Port={ports[node]} "
            f"CPUs={cpus} RealMemory=1024 State=UNKNOWN"
        )
    lines.append(f"PartitionName={PARTITION} Nodes={','.join(nodes)} Default=YES MaxTime=INFINITE State=UP")
    return "\n".join(lines) + "\n"


def _clean_env(root: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(FOREIGN_PREFIXES)}
    env["SLURM_CONF"] = str(root / "slurm.conf")
    return env


def _launch(cluster: SlurmCluster, name: str, args: list[str]) -> None:
    env = {**cluster.env, MARKER: str(cluster.root)}
    with open(cluster.root / "log" / f"{name}.out", "ab") as out:
        cluster._daemons[name] = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env, cwd=cluster.root,
            start_new_session=True, preexec_fn=_die_with_parent,
        )


def _wait(cluster: SlurmCluster, ready, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        dead = [name for name, proc in cluster._daemons.items() if proc.poll() is not None]
        if dead:
            raise SlurmStartError(f"{dead[0]} exited while waiting for {what}:\n{cluster.logs()}")
        if time.monotonic() > deadline:
            raise SlurmStartError(f"no {what} within {timeout:g} s:\n{cluster.logs()}")
        time.sleep(0.1)


def _start_once(nodes: tuple[str, ...], cpus_per_node: int) -> SlurmCluster:
    root = Path(tempfile.mkdtemp(prefix="iotune-slurm-", dir=_base_dir()))
    (root / OWNER).write_text(f"{os.getpid()} {_started(os.getpid())}")
    # munged refuses a socket directory that not everyone may enter.
    root.chmod(0o755)
    ports = dict(zip(("slurmctld", *nodes), _free_ports(1 + len(nodes))))
    cluster = SlurmCluster(root=root, nodes=nodes, cpus_per_node=cpus_per_node, partition=PARTITION,
                           env=_clean_env(root), ports=ports)
    try:
        for sub in ("munge", "state", "run", "log", *(f"spool/{node}" for node in nodes)):
            (root / sub).mkdir(parents=True, mode=0o755)
        key = root / "munge" / "munge.key"
        subprocess.run([_which("mungekey"), "--create", f"--keyfile={key}"], check=True, capture_output=True)
        (root / "plugstack.conf").write_text("")
        cluster.conf.write_text(_slurm_conf(root, socket.gethostname(), nodes, cpus_per_node, ports))
        _launch(cluster, "munged", [
            _which("munged"), "--foreground", f"--socket={cluster.munge_socket}", f"--key-file={key}",
            f"--log-file={cluster.log('munged')}", f"--pid-file={root / 'run' / 'munged.pid'}",
            f"--seed-file={root / 'munge' / 'munged.seed'}",
        ])
        _wait(cluster, cluster.munge_socket.exists, START_TIMEOUT, "munge socket")
        _launch(cluster, "slurmctld", [_which("slurmctld"), "-D", "-i", "-f", str(cluster.conf)])
        for node in nodes:
            _launch(cluster, node, [_which("slurmd"), "-D", "-N", node, "-f", str(cluster.conf)])
        _wait(cluster, lambda: cluster.node_states() == {node: "idle" for node in nodes}, START_TIMEOUT,
              "idle nodes")
    except BaseException:
        cluster.stop()
        raise
    return cluster


def start_slurm_cluster(nodes: int = 3, cpus_per_node: int = 2, attempts: int = 3) -> SlurmCluster:
    """Start munged, slurmctld and ``nodes`` slurmd (n1, n2...) and wait until all nodes are idle.

    Call :meth:`SlurmCluster.stop` when done.  Clusters abandoned by dead test processes are removed
    first (:func:`remove_abandoned_clusters`).  A start that fails (a port taken in between, say)
    is cleaned up and retried with new ports; the last failure raises :class:`SlurmStartError`.
    """
    problem = slurm_problem()
    if problem:
        raise SlurmStartError(problem)
    remove_abandoned_clusters()
    names = tuple(f"n{index}" for index in range(1, nodes + 1))
    for attempt in range(attempts):
        try:
            return _start_once(names, cpus_per_node)
        except SlurmStartError:
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def slurm_cluster():
    """A running three-node Slurm cluster (:class:`SlurmCluster`), stopped and removed after the session."""
    problem = slurm_problem()
    if problem:
        pytest.skip(f"requires_slurm: {problem}")
    try:
        cluster = start_slurm_cluster()
    except SlurmStartError as exc:
        pytest.fail(f"could not start a Slurm cluster: {exc}", pytrace=False)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def slurm(slurm_cluster):
    """The session's Slurm cluster, with every job of the test cancelled afterwards."""
    yield slurm_cluster
    slurm_cluster.cancel_all()


def pytest_collection_modifyitems(config, items):
    marked = [item for item in items if "requires_slurm" in item.keywords]
    problem = slurm_problem() if marked else None
    if problem:
        for item in marked:
            item.add_marker(pytest.mark.skip(reason=f"requires_slurm: {problem}"))

