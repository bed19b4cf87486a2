"""The test Slurm cluster itself: placement on virtual nodes, job arrays, cancellation, following a
job without accounting, and MPI jobs that span the nodes (MPICH's hydra and srun's PMI-2)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.requires_slurm, pytest.mark.slow]

PLACEMENT = Path(__file__).with_name("mpi_placement.py")


def _alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _wait_until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} not seen within {timeout:g} s"
        time.sleep(0.1)


def test_all_nodes_idle_and_distinct(slurm):
    assert slurm.node_states() == {"n1": "idle", "n2": "idle", "n3": "idle"}
    assert len(set(slurm.ports.values())) == 4


def test_srun_places_one_task_on_each_node(slurm):
    result = slurm.srun("-N3", "--ntasks-per-node=1", "bash", "-c", 'echo "$SLURMD_NODENAME $SLURM_PROCID"')
    placed = sorted(line.split() for line in result.stdout.splitlines())
    assert placed == [["n1", "0"], ["n2", "1"], ["n3", "2"]]


def test_job_array_tasks_each_write_a_file(slurm, tmp_path):
    script = (
        "#!/bin/bash\n"
        'echo "$SLURM_ARRAY_TASK_ID $SLURM_ARRAY_JOB_ID $SLURMD_NODENAME" > "task_$SLURM_ARRAY_TASK_ID"\n'
    )
    job = slurm.sbatch("--array=0-2", f"--output={tmp_path}/%A_%a.out", script=script, cwd=tmp_path)
    states = slurm.wait_finished(job, tasks=3)
    assert states == {f"{job}_{task}": "COMPLETED" for task in range(3)}
    for task in range(3):
        index, array_job, node = (tmp_path / f"task_{task}").read_text().split()
        assert (index, array_job) == (str(task), job)
        assert node in slurm.nodes


def test_scancel_stops_a_running_array(slurm, tmp_path):
    script = (
        "#!/bin/bash\n"
        'echo $$ > "pid_$SLURM_ARRAY_TASK_ID.tmp"\n'
        'mv "pid_$SLURM_ARRAY_TASK_ID.tmp" "pid_$SLURM_ARRAY_TASK_ID"\n'
        "exec sleep 600\n"
    )
    job = slurm.sbatch("--array=0-2", "--output=/dev/null", script=script, cwd=tmp_path)
    slurm.wait_running(job, tasks=3)
    _wait_until(lambda: len(list(tmp_path.glob("pid_?"))) == 3, 60, "three task pid files")
    pids = [int(path.read_text()) for path in tmp_path.glob("pid_?")]
    assert all(_alive(pid) for pid in pids)

    slurm.scancel(job)

    states = slurm.wait_finished(job, tasks=3)
    assert set(states.values()) == {"CANCELLED"}
    _wait_until(lambda: not any(_alive(pid) for pid in pids), 30, "the tasks' processes gone")
    assert slurm.active_jobs() == []


def test_scancel_sends_sigterm_first(slurm, tmp_path):
    script = "#!/bin/bash\ntrap 'touch got_term; exit 0' TERM\ntouch started\nsleep 600 & wait\n"
    job = slurm.sbatch("--output=/dev/null", script=script, cwd=tmp_path)
    slurm.wait_running(job)
    _wait_until((tmp_path / "started").exists, 60, "the script running")

    slurm.scancel(job)

    assert slurm.wait_finished(job) == {job: "CANCELLED"}
    assert (tmp_path / "got_term").exists()


def test_follow_a_job_without_accounting(slurm, tmp_path):
    script = "#!/bin/bash\nwhile [ ! -e go ]; do sleep 0.1; done\nexit 3\n"
    job = slurm.sbatch("--output=/dev/null", script=script, cwd=tmp_path)

    assert slurm.wait_running(job) == {job: "RUNNING"}
    assert job in slurm.active_jobs()
    (tmp_path / "go").touch()
    assert slurm.wait_finished(job) == {job: "FAILED"}
    assert job not in slurm.active_jobs()

    details = slurm.run("scontrol", "show", "job", "-o", job).stdout
    assert "JobState=FAILED" in details and "ExitCode=3:0" in details
    _wait_until(lambda: slurm.jobcomp.exists() and f"JobId={job} " in slurm.jobcomp.read_text(), 30,
                "the job's jobcomp line")
    record = next(line for line in slurm.jobcomp.read_text().splitlines() if f"JobId={job} " in line)
    assert "JobState=FAILED" in record and "ExitCode=3:0" in record
    assert slurm.job_states("4000000") == {}
    sacct = slurm.run("sacct", check=False)
    assert "accounting storage is disabled" in (sacct.stdout + sacct.stderr).lower()


@pytest.mark.requires_mpi
@pytest.mark.parametrize("per_node", [1, 2])
def test_mpiexec_in_a_batch_job_spans_the_nodes(slurm, tmp_path, per_node):
    from iotune.bench.world import find_mpiexec

    size = 3 * per_node
    out = tmp_path / "placement.json"
    script = f"#!/bin/bash\nexec {find_mpiexec()} -n {size} {sys.executable} {PLACEMENT} {out}\n"
    job = slurm.sbatch("-N3", f"--ntasks-per-node={per_node}", f"--output={tmp_path}/job.out", script=script,
                       cwd=tmp_path)
    states = slurm.wait_finished(job, timeout=180)
    assert states == {job: "COMPLETED"}, (tmp_path / "job.out").read_text()[-2000:]
    report = json.loads(out.read_text())
    ranks = report["ranks"]
    assert [rank["rank"] for rank in ranks] == list(range(size))
    assert {rank["size"] for rank in ranks} == {size}
    assert report["rank_sum"] == size * (size - 1) // 2
    assert sorted(rank["node"] for rank in ranks) == sorted(slurm.nodes * per_node)
    assert len({rank["pid"] for rank in ranks}) == size


@pytest.mark.requires_mpi
def test_srun_with_pmi2_starts_one_world_across_the_nodes(slurm, tmp_path):
    out = tmp_path / "placement.json"
    slurm.srun("--mpi=pmi2", "-N3", "-n3", sys.executable, PLACEMENT, out, timeout=180)
    ranks = json.loads(out.read_text())["ranks"]
    assert [(rank["rank"], rank["size"]) for rank in ranks] == [(0, 3), (1, 3), (2, 3)]
    assert sorted(rank["node"] for rank in ranks) == ["n1", "n2", "n3"]


def test_environment_points_only_at_the_test_cluster(slurm):
    assert slurm.env["SLURM_CONF"] == str(slurm.conf)
    assert not [key for key in slurm.env if key.startswith(("SLURM_", "SBATCH_")) and key != "SLURM_CONF"]
    conf = slurm.conf.read_text()
    assert f"AuthInfo=socket={slurm.munge_socket}" in conf
    assert os.path.exists(slurm.munge_socket)
