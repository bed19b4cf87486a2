"""Workers as a Slurm job array: the batch script, submitting it, following and cancelling its tasks.

The controller (``iotune bench --executor slurm``) runs where Slurm's clients
are (a login node); each task of the array runs one ``iotune worker`` on an
allocation of ``nodes_per_trial`` nodes, one task slot per node, so that the
``mpiexec`` of a trial (MPICH's hydra sees the allocation) places its ranks
round-robin over all of the allocation's nodes.  The store's URL reaches the
workers through the environment (``IOTUNE_DB``, exported by ``sbatch``), never
through the script, which Slurm keeps and shows to administrators.

Slurm's clients are looked up when used; without them every function here
says so in one line (:class:`SlurmError`).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import iotune
from iotune.errors import IotuneError

ACTIVE_STATES = frozenset({"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "REQUEUED", "REQUEUE_HOLD",
                           "REQUEUE_FED", "RESIZING", "SUSPENDED", "STOPPED", "SIGNALING", "STAGE_OUT"})
"""Task states (squeue's long names) in which a task runs or will run."""
_PARTITION = re.compile(r"^[A-Za-z0-9_.,-]+$")
_TIME = re.compile(r"^(UNLIMITED|INFINITE|\d+(-\d+)?(:\d+){0,2})$")
CLIENT_TIMEOUT_S = 60.0


class SlurmError(IotuneError, RuntimeError):
    """A Slurm client is missing or failed, or a job option is malformed."""


@dataclass(frozen=True)
class SlurmJob:
    """What to ask Slurm for: ``workers`` array tasks of ``nodes_per_trial`` nodes each.

    ``partition`` and ``time_limit`` (Slurm's formats: ``30``, ``2:00:00``,
    ``1-12``) become ``#SBATCH`` lines; ``sbatch_options`` are more such lines
    (``--account=proj``, ``--exclusive``, ``--qos=debug``); ``setup`` lines run
    before the worker (``module load mpich``, ``source venv/bin/activate``).
    """

    workers: int
    partition: str | None = None
    time_limit: str | None = None
    nodes_per_trial: int = 1
    sbatch_options: tuple[str, ...] = ()
    setup: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 1:
            raise SlurmError(f"--workers must be a whole number >= 1, got {self.workers!r}")
        if (isinstance(self.nodes_per_trial, bool) or not isinstance(self.nodes_per_trial, int)
                or self.nodes_per_trial < 1):
            raise SlurmError(f"--nodes-per-trial must be a whole number >= 1, got {self.nodes_per_trial!r}")
        if self.partition is not None and not _PARTITION.match(self.partition):
            raise SlurmError(f"--partition must be a partition name (letters, digits, _ . , -), "
                             f"got {self.partition!r}")
        if self.time_limit is not None and not _TIME.match(self.time_limit):
            raise SlurmError(f"--time-limit must be in Slurm's format (minutes, H:MM:SS, D-HH...), "
                             f"got {self.time_limit!r}")
        for line in (*self.sbatch_options, *self.setup):
            if not isinstance(line, str) or any(c in line for c in "\n\r\0"):
                raise SlurmError(f"a job option or setup line must be one line, got {line!r}")
        for option in self.sbatch_options:
            if not _sbatch_option(option).startswith("-"):
                raise SlurmError(f"--sbatch-option takes an sbatch option such as --account=proj, got {option!r}")


def _sbatch_option(line: str) -> str:
    line = line.strip()
    return line[len("#SBATCH"):].strip() if line.startswith("#SBATCH") else line


def job_name(study: str) -> str:
    """The job's name: ``iotune-<study>`` with characters Slurm's output patterns dislike replaced."""
    return "iotune-" + re.sub(r"[^A-Za-z0-9_.-]", "_", study)[:64]


def job_script(job: SlurmJob, study: str, worker_command: list[str], log_dir: Path) -> str:
    """The batch script: ``#SBATCH`` lines, the site's setup lines, then ``exec`` the worker command."""
    lines = ["#!/bin/bash",
             f"#SBATCH --job-name={job_name(study)}",
             f"#SBATCH --array=0-{job.workers - 1}",
             f"#SBATCH --nodes={job.nodes_per_trial}",
             "#SBATCH --ntasks-per-node=1",
             f"#SBATCH --output={log_dir}/%x-%A_%a.out"]
    if job.partition:
        lines.append(f"#SBATCH --partition={job.partition}")
    if job.time_limit:
        lines.append(f"#SBATCH --time={job.time_limit}")
    lines += [f"#SBATCH {_sbatch_option(option)}" for option in job.sbatch_options]
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
    lines += [f"# iotune {iotune.__version__}: workers of study {study!r}, written {stamp}.",
              "# The store's URL comes from IOTUNE_DB in the environment that sbatch exports.",
              "set -e", *job.setup,
              ': "${IOTUNE_DB:?is not set in the job: let sbatch export the environment (--export=ALL)}"',
              "export IOTUNE_PLAIN=1",
              "exec " + shlex.join(worker_command)]
    return "\n".join(lines) + "\n"


def _client(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise SlurmError(f"{name} not found on PATH: --executor slurm runs where Slurm's clients are "
                         "(a login node), with slurm-client installed")
    return found


def _run(args: list[str], env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=CLIENT_TIMEOUT_S, env=env,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise SlurmError(f"{Path(args[0]).name} did not answer within {CLIENT_TIMEOUT_S:g} s") from None
    except OSError as error:
        raise SlurmError(f"cannot run {args[0]}: {error.strerror or error}") from None
    if check and done.returncode != 0:
        tail = " ".join((done.stderr or done.stdout).split())[-300:]
        raise SlurmError(f"{Path(args[0]).name} failed (exit {done.returncode}): {tail}")
    return done


def check_clients() -> None:
    """SlurmError when sbatch, squeue or scancel is missing here."""
    for name in ("sbatch", "squeue", "scancel"):
        _client(name)


def submit(script: Path, env: dict[str, str], cwd: Path | None = None) -> str:
    """Submit ``script`` with ``env`` (exported to the job); return the job id ("123")."""
    done = _run([_client("sbatch"), "--parsable", str(script)], env=env)
    job = done.stdout.strip().split(";")[0]
    if not job.isdigit():
        raise SlurmError(f"sbatch answered {done.stdout.strip()!r}, not a job id")
    return job


def task_states(job: str) -> dict[str, tuple[str, str]]:
    """``{"123_0": ("RUNNING", "n1"), ...}``: each task's state and node(s) as slurmctld knows them.

    Empty once slurmctld has forgotten the job (``MinJobAge`` after it ended,
    300 s by default): a job that is not listed runs nothing.
    """
    if not job.isdigit():
        raise SlurmError(f"a Slurm job id is a number, got {job!r}")
    done = _run([_client("squeue"), "-h", "-r", "--states=all", "-j", job, "-o", "%i|%T|%N"], check=False)
    if done.returncode != 0:
        if "Invalid job id" in done.stderr:
            return {}
        raise SlurmError(f"squeue failed (exit {done.returncode}): {' '.join(done.stderr.split())[-300:]}")
    states = {}
    for line in done.stdout.splitlines():
        parts = line.strip().split("|")
        if len(parts) == 3 and parts[0]:
            states[parts[0]] = (parts[1], parts[2])
    return states


def active(states: dict[str, tuple[str, str]]) -> list[str]:
    """Tasks that run or will run."""
    return [task for task, (state, _) in states.items() if state in ACTIVE_STATES]


def cancel(job: str, pending_only: bool = False) -> None:
    """Cancel the job's tasks (only those still pending with ``pending_only``); finished ones are no error."""
    args = [_client("scancel")] + (["--state=PENDING"] if pending_only else []) + [job]
    _run(args, check=False)


def allocation(environ: dict[str, str] | None = None) -> dict | None:
    """What a worker inside a Slurm job records about it: job, array task, node count and names; else None."""
    env = os.environ if environ is None else environ
    job = env.get("SLURM_ARRAY_JOB_ID") or env.get("SLURM_JOB_ID")
    if not job:
        return None
    nodes = env.get("SLURM_JOB_NUM_NODES") or env.get("SLURM_NNODES") or "1"
    return {"job": job, "task": env.get("SLURM_ARRAY_TASK_ID"), "nodes": int(nodes) if nodes.isdigit() else None,
            "nodelist": env.get("SLURM_JOB_NODELIST"), "node": env.get("SLURMD_NODENAME")}
