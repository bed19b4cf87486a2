"""Campaigns on the test Slurm cluster sharing one PostgreSQL store: every trial exactly once, workers killed
or cancelled lose nothing and repeat nothing, and 3 workers tune as well as one in less time."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest

from iotune.owner import local_pid
from iotune.store import Store
from tests.processes import default_signals

pytestmark = [pytest.mark.requires_slurm, pytest.mark.requires_postgres, pytest.mark.requires_mpi]

ROOT = Path(__file__).resolve().parents[2]
GROUND_TRUTH = ROOT / "data" / "ground_truth"
TINY = textwrap.dedent("""\
    name: tiny
    parameters:
      - {name: transfer_size, type: size, levels: [64KiB, 128KiB, 256KiB], role: workload, layer: application}
      - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system,
         layer: mpiio}
      - {name: cb_buffer_size, type: size, levels: [1MiB, 4MiB], role: system, layer: mpiio}
    benchmark: {api: MPIIO, processes: 2, block_size: 256KiB, collective: true, fsync: true}
    campaign: {repeats: 4}
""")


def iotune(*args, slurm, cwd, timeout=240, wait=True):
    env = {**slurm.env, "IOTUNE_PLAIN": "1"}
    command = [sys.executable, "-m", "iotune", *map(str, args)]
    if not wait:
        return subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=default_signals)
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def replay_bench(url, tmp_path, slurm, *extra, study="gt", scale="2", wait=True, timeout=240):
    return iotune("bench", GROUND_TRUTH / "testbed_ground_truth.yaml", "--study", study, "--db", url,
                  "--runner", f"replay:{GROUND_TRUTH / 'testbed_ground_truth.csv'}", "--replay-scale", scale,
                  "--scratch", tmp_path / "scratch", *extra, slurm=slurm, cwd=tmp_path, wait=wait, timeout=timeout)


def trials(url, study):
    with Store(url) as store:
        return store.trials(study=study)


def worker_logs(tmp_path) -> str:
    return "".join(path.read_text() for path in sorted((tmp_path / "iotune-slurm").glob("*.out")))


def ran(logs: str) -> Counter:
    """How many times each trial id was committed, from the workers' logs."""
    return Counter(int(m) for m in re.findall(r"^trial (\d+) \(", logs, flags=re.M))


def executor(url, study):
    with Store(url) as store:
        return store.get_study(study).settings["executor"]


def wait_until(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} not seen within {timeout} s"
        time.sleep(0.2)


def finish(process, timeout=180):
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"the controller did not finish within {timeout} s: {err[-2000:]}")
    return process.returncode, err


@pytest.mark.slow
def test_a_campaign_of_72_real_trials_on_3_workers_runs_every_trial_exactly_once(slurm, new_postgres_database,
                                                                                 tmp_path):
    url = new_postgres_database()
    (tmp_path / "tiny.yaml").write_text(TINY)
    done = iotune("bench", "tiny.yaml", "--db", url, "--executor", "slurm", "--workers", "3", "--scratch",
                  tmp_path / "scratch", slurm=slurm, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "72 trials completed, 0 failed" in done.stderr
    found = trials(url, "tiny")
    assert len(found) == 72 and {t.state for t in found} == {"COMPLETE"}
    assert len({(t.config_key, t.repeat) for t in found}) == 72
    assert all([p.phase for p in t.phases] == ["write", "read"] for t in found)
    job = executor(url, "tiny")["job"]
    assert {t.extra["slurm"]["job"] for t in found} == {job}
    assert len({t.owner for t in found}) >= 2  # the work was shared
    logs = worker_logs(tmp_path)
    assert ran(logs) == Counter({t.id: 1 for t in found})  # no trial was run by two workers
    states = slurm.wait_finished(job, tasks=3, timeout=60)
    assert set(states.values()) <= {"COMPLETED", "CANCELLED"}, states
    status = iotune("status", "--study", "tiny", "--db", url, slurm=slurm, cwd=tmp_path)
    assert status.returncode == 0 and "COMPLETE 72" in status.stderr and f"Slurm job {job}" in status.stderr


def in_study(store, study="gt", state=None):
    """The study's trials (in ``state``), or [] before the controller created the study."""
    return store.trials(study=study, state=state) if store.get_study(study) is not None else []


@pytest.mark.slow
def test_a_worker_killed_mid_trial_loses_its_trial_to_another(slurm, new_postgres_database, tmp_path):
    url = new_postgres_database()
    controller = replay_bench(url, tmp_path, slurm, "--sampler", "random", "--budget", "15", "--repeats", "1",
                              "--executor", "slurm", "--workers", "3", "--grace", "5", scale="3", wait=False)
    with Store(url) as store:
        def running():
            return [t for t in in_study(store, state="RUNNING") if local_pid(t.owner)]

        wait_until(lambda: len(running()) >= 2, 120, "two running trials")
        victim = running()[0]
        os.kill(local_pid(victim.owner), signal.SIGKILL)
    code, err = finish(controller)
    assert code == 0, err[-3000:]
    found = trials(url, "gt")
    assert len(found) == 15 and {t.state for t in found} == {"COMPLETE"}
    retaken = next(t for t in found if t.id == victim.id)
    assert retaken.owner != victim.owner and len(retaken.phases) == 2
    assert ran(worker_logs(tmp_path)) == Counter({t.id: 1 for t in found})


@pytest.mark.slow
def test_scancel_then_resume_loses_nothing_and_repeats_nothing_and_a_second_controller_is_refused(
        slurm, new_postgres_database, tmp_path):
    url = new_postgres_database()
    args = ("--sampler", "random", "--budget", "36", "--repeats", "1", "--executor", "slurm", "--workers", "3")
    controller = replay_bench(url, tmp_path, slurm, *args, scale="3", wait=False)
    with Store(url) as store:
        wait_until(lambda: store.get_study("gt") is not None and store.get_study("gt").controller, 120,
                   "the controller's lease")
        second = replay_bench(url, tmp_path, slurm, *args, "--resume", timeout=120)
        assert second.returncode == 2 and "is being run by" in second.stderr, second.stderr[-2000:]
        wait_until(lambda: len(in_study(store, state="COMPLETE")) >= 6, 120, "six complete trials")
    job = executor(url, "gt")["job"]
    slurm.scancel(job)
    code, err = finish(controller)
    assert code == 2 and f"Slurm job {job} ended (CANCELLED)" in err and "--resume" in err, err[-2000:]
    before = {t.id: (t.uid, t.finished_at) for t in trials(url, "gt") if t.state == "COMPLETE"}
    assert 6 <= len(before) < 36

    resumed = replay_bench(url, tmp_path, slurm, *args, "--resume", scale="1", timeout=240)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert executor(url, "gt")["job"] != job
    after = trials(url, "gt")
    assert len(after) == 36 and {t.state for t in after} == {"COMPLETE"}
    assert {t.id: (t.uid, t.finished_at) for t in after if t.id in before} == before  # nothing measured again
    counts = ran(worker_logs(tmp_path))
    assert set(counts) == {t.id for t in after} and max(counts.values()) == 1


@pytest.mark.slow
def test_three_workers_tune_as_well_as_one_within_the_same_runs_in_less_time(slurm, new_postgres_database,
                                                                             tmp_path):
    """The ground truth replayed (a stand-in for the storage): a genetic algorithm, 24 runs, 1 worker here
    against 3 Slurm workers proposing 3 configurations at a time (ConstantLiar)."""
    url = new_postgres_database()
    args = ("--sampler", "genetic", "--budget", "24", "--repeats", "1", "--seed", "1")
    spec = tmp_path / "ga.yaml"
    spec.write_text((GROUND_TRUTH / "testbed_ground_truth.yaml").read_text().replace(
        "campaign:\n", "campaign:\n  options: {population: 6}\n"))
    one = iotune("bench", spec, "--study", "one", "--db", url, "--runner",
                 f"replay:{GROUND_TRUTH / 'testbed_ground_truth.csv'}", "--replay-scale", "1", *args,
                 slurm=slurm, cwd=tmp_path)
    assert one.returncode == 0, one.stderr[-2000:]
    three = iotune("bench", spec, "--study", "three", "--db", url, "--runner",
                   f"replay:{GROUND_TRUTH / 'testbed_ground_truth.csv'}", "--replay-scale", "1", *args,
                   "--executor", "slurm", "--workers", "3", slurm=slurm, cwd=tmp_path)
    assert three.returncode == 0, three.stderr[-2000:]
    serial, parallel = trials(url, "one"), trials(url, "three")
    assert len(serial) == len(parallel) == 24

    def best(found):
        return min(t.io_seconds for t in found if t.state == "COMPLETE")

    def span(found):
        from datetime import datetime

        return (max(datetime.fromisoformat(t.finished_at) for t in found)
                - min(datetime.fromisoformat(t.started_at) for t in found)).total_seconds()

    def most_at_once(found):
        events = sorted([(t.started_at, 1) for t in found] + [(t.finished_at, -1) for t in found])
        running = peak = 0
        for _, step in events:
            running += step
            peak = max(peak, running)
        return peak

    assert best(parallel) <= best(serial) * 1.02
    assert most_at_once(serial) == 1 and most_at_once(parallel) == 3
    assert span(parallel) < 0.8 * span(serial)


@pytest.mark.slow
def test_a_trials_ranks_span_the_nodes_of_its_workers_allocation(slurm, new_postgres_database, tmp_path):
    url = new_postgres_database()
    (tmp_path / "wide.yaml").write_text(TINY.replace("name: tiny", "name: wide").replace("processes: 2", "processes: 3")
                                        .replace("levels: [64KiB, 128KiB, 256KiB]", "levels: [64KiB]")
                                        .replace("repeats: 4", "repeats: 1"))
    done = iotune("bench", "wide.yaml", "--db", url, "--executor", "slurm", "--workers", "1", "--nodes-per-trial",
                  "3", "--scratch", tmp_path / "scratch", slurm=slurm, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    found = trials(url, "wide")
    assert len(found) == 6 and {t.state for t in found} == {"COMPLETE"}
    for trial in found:
        assert sorted(trial.extra["nodes"]) == ["n1", "n2", "n3"]  # one rank on each node of the allocation
        assert trial.extra["slurm"]["nodes"] == 3
