"""``iotune tune --executor slurm`` on the test Slurm cluster sharing one PostgreSQL store, with the testbed
ground truth replayed (a stand-in for the storage): the budget is spent with every run exactly once, three
runs in flight, the best recorded; a tuning left mid-way and resumed queues nothing again."""

from __future__ import annotations

import json
import signal
from collections import Counter
from datetime import datetime

import pytest

from iotune.store import Store
from tests.study.test_slurm_campaign import GROUND_TRUTH, finish, iotune, ran, trials, wait_until, worker_logs

pytestmark = [pytest.mark.requires_slurm, pytest.mark.requires_postgres]

WORKLOAD = "api=MPIIO,collective=true,file_per_process=false,transfer_size=256KiB"


def replay_tune(url, tmp_path, slurm, *extra, budget="9", wait=True, scale="1"):
    return iotune("tune", GROUND_TRUTH / "testbed_ground_truth.yaml", "--study", "t", "--db", url, "--budget", budget,
                  "--workload", WORKLOAD, "--runner", f"replay:{GROUND_TRUTH / 'testbed_ground_truth.csv'}",
                  "--replay-scale", scale, "--scratch", tmp_path / "scratch", "--executor", "slurm", "--workers", "3",
                  "--format", "json", "--no-race", *extra, slurm=slurm, cwd=tmp_path, wait=wait)


def most_at_once(found) -> int:
    events = sorted([(datetime.fromisoformat(t.started_at), 1) for t in found]
                    + [(datetime.fromisoformat(t.finished_at), -1) for t in found])
    running = peak = 0
    for _, step in events:
        running += step
        peak = max(peak, running)
    return peak


@pytest.mark.slow
def test_a_tuning_on_3_workers_spends_its_budget_with_every_run_once_and_records_the_best(
        slurm, new_postgres_database, tmp_path):
    url = new_postgres_database()
    done = replay_tune(url, tmp_path, slurm)
    assert done.returncode == 0, done.stderr[-3000:]
    found = trials(url, "t")
    assert len(found) == 9 and {t.state for t in found} == {"COMPLETE"}
    assert len({(t.config_key, t.repeat) for t in found}) == 9
    assert ran(worker_logs(tmp_path)) == Counter({t.id: 1 for t in found})  # no run measured twice
    assert most_at_once(found) == 3 and len({t.owner for t in found}) >= 2
    summary = json.loads(done.stdout)
    assert summary["runs"] == 9 and len(summary["history"]) == 9
    best = min(found, key=lambda t: t.io_seconds)
    assert summary["best"]["configuration"] == best.config
    assert summary["best"]["mean"] == pytest.approx(best.io_seconds)
    assert "(3 in flight)" in done.stderr


@pytest.mark.slow
def test_a_tuning_left_mid_way_resumes_without_queueing_again_what_was_in_flight(
        slurm, new_postgres_database, tmp_path):
    url = new_postgres_database()
    controller = replay_tune(url, tmp_path, slurm, budget="12", scale="3", wait=False)
    with Store(url) as store:
        def complete():
            return [t for t in store.trials(study="t", state="COMPLETE")] if store.get_study("t") else []

        wait_until(lambda: len(complete()) >= 3, 180, "three finished runs")
        controller.send_signal(signal.SIGINT)
        code, err = finish(controller)
        assert code == 130 and "left the tuning" in err, err[-2000:]
        left = {t.id: (t.config_key, t.repeat) for t in store.trials(study="t") if t.state in ("PENDING", "RUNNING")}
    resumed = replay_tune(url, tmp_path, slurm, "--resume", budget="12")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    found = trials(url, "t")
    assert len(found) == 12 and {t.state for t in found} == {"COMPLETE"}
    assert len({(t.config_key, t.repeat) for t in found}) == 12
    assert {t.id: (t.config_key, t.repeat) for t in found if t.id in left} == left  # finished, not queued again
    assert ran(worker_logs(tmp_path)) == Counter({t.id: 1 for t in found})
    assert json.loads(resumed.stdout)["runs"] == 12


@pytest.mark.slow
def test_three_workers_tune_as_well_as_one_within_the_same_runs_in_less_time(slurm, new_postgres_database,
                                                                             tmp_path):
    """Issue 11's claim on the cluster, the ground truth replayed: 9 runs of 12 candidates, no prior."""
    url = new_postgres_database()

    def tuned(study, workers):
        done = iotune("tune", GROUND_TRUTH / "testbed_ground_truth.yaml", "--study", study, "--db", url, "--budget",
                      "9", "--workload", WORKLOAD, "--runner", f"replay:{GROUND_TRUTH / 'testbed_ground_truth.csv'}",
                      "--replay-scale", "2", "--executor", "slurm", "--workers", str(workers), "--format", "json",
                      "--no-race", slurm=slurm, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]
        found = trials(url, study)
        span = (max(datetime.fromisoformat(t.finished_at) for t in found)
                - min(datetime.fromisoformat(t.started_at) for t in found)).total_seconds()
        return json.loads(done.stdout), found, span

    serial, serial_runs, serial_span = tuned("one", 1)
    parallel, parallel_runs, parallel_span = tuned("three", 3)
    assert len(serial_runs) == len(parallel_runs) == 9
    assert most_at_once(serial_runs) == 1 and most_at_once(parallel_runs) == 3
    assert parallel["best"]["mean"] <= serial["best"]["mean"] * 1.05
    assert parallel_span < 0.8 * serial_span
