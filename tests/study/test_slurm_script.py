"""The Slurm job of a campaign's workers: its script, its options, and the errors of bench --executor."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

import pytest

from iotune.study.slurm import SlurmError, SlurmJob, allocation, job_script


def test_the_script_carries_the_sites_lines_and_never_the_store_url(tmp_path):
    job = SlurmJob(4, partition="short", time_limit="1:30:00", nodes_per_trial=2,
                   sbatch_options=("--account=proj", "#SBATCH --exclusive"), setup=("module load mpich",))
    command = [sys.executable, "-m", "iotune", "worker", "--study", "a study's name", "--runner", "builtin"]
    script = job_script(job, "a study's name", command, tmp_path)
    lines = script.splitlines()
    assert lines[0] == "#!/bin/bash"
    for expected in ("#SBATCH --array=0-3", "#SBATCH --nodes=2", "#SBATCH --ntasks-per-node=1",
                     "#SBATCH --partition=short", "#SBATCH --time=1:30:00", "#SBATCH --account=proj",
                     "#SBATCH --exclusive", f"#SBATCH --output={tmp_path}/%x-%A_%a.out",
                     "#SBATCH --job-name=iotune-a_study_s_name", "module load mpich"):
        assert expected in lines
    assert lines.index("module load mpich") < len(lines) - 1
    assert shlex.split(lines[-1]) == ["exec", *command]
    assert "IOTUNE_DB" in script and "postgresql" not in script


@pytest.mark.parametrize("kwargs, message", [
    ({"workers": 0}, "--workers"),
    ({"workers": 2, "nodes_per_trial": 0}, "--nodes-per-trial"),
    ({"workers": 2, "partition": "a b"}, "--partition"),
    ({"workers": 2, "time_limit": "an hour"}, "--time-limit"),
    ({"workers": 2, "sbatch_options": ("account=proj",)}, "--sbatch-option"),
    ({"workers": 2, "setup": ("module load a\nrm -rf /",)}, "one line"),
])
def test_malformed_job_options_are_one_clear_error(kwargs, message):
    with pytest.raises(SlurmError, match=message):
        SlurmJob(**kwargs)


def test_a_worker_reads_its_allocation_from_slurms_environment():
    env = {"SLURM_JOB_ID": "18", "SLURM_ARRAY_JOB_ID": "17", "SLURM_ARRAY_TASK_ID": "1", "SLURM_JOB_NUM_NODES": "3",
           "SLURM_JOB_NODELIST": "n[1-3]", "SLURMD_NODENAME": "n1"}
    assert allocation(env) == {"job": "17", "task": "1", "nodes": 3, "nodelist": "n[1-3]", "node": "n1"}
    assert allocation({}) is None


def _bench(tmp_path, *args, env=None):
    spec = tmp_path / "s.yaml"
    spec.write_text("name: s\nparameters:\n  - {name: transfer_size, type: size, levels: [64KiB], role: workload, "
                    "layer: application}\nbenchmark: {block_size: 64KiB}\n")
    return subprocess.run([sys.executable, "-m", "iotune", "bench", str(spec), *map(str, args)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "IOTUNE_PLAIN": "1", **(env or {})})


@pytest.mark.slow
def test_bench_refuses_what_cannot_work_in_one_line(tmp_path):
    sqlite = _bench(tmp_path, "--executor", "slurm", "--workers", "2", "--db", tmp_path / "s.db")
    assert sqlite.returncode == 2 and "PostgreSQL" in sqlite.stderr and "Traceback" not in sqlite.stderr
    local = _bench(tmp_path, "--workers", "2", "--db", tmp_path / "s.db")
    assert local.returncode == 2 and "--workers only apply with --executor slurm" in local.stderr
    other = _bench(tmp_path, "--executor", "kubernetes", "--db", tmp_path / "s.db")
    assert other.returncode == 2 and "--executor must be local or slurm" in other.stderr
    no_slurm = _bench(tmp_path, "--executor", "slurm", "--db", "postgresql+psycopg://u@/db?host=/nowhere",
                      env={"PATH": os.path.dirname(sys.executable)})
    assert no_slurm.returncode == 2 and "sbatch not found" in no_slurm.stderr
    assert not (tmp_path / "s.db").exists()
