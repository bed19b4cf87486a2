"""``iotune worker`` and ``iotune status`` as processes on a shared store: a worker runs what is queued and
leaves, gives its trial back on SIGTERM, and never records a trial that another worker took over."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from iotune.owner import local_pid, process_owner
from iotune.runners.replay import ReplayTable
from iotune.spec import load_spec
from iotune.spec.mapping import benchmark_spec
from iotune.store import Store
from iotune.study import Study

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "data" / "ground_truth" / "testbed_ground_truth.yaml"
TABLE = ROOT / "data" / "ground_truth" / "testbed_ground_truth.csv"


def queue(url, count: int, study: str = "gt") -> list[str]:
    """A study of the ground truth's spec with ``count`` trials queued; returns their configuration keys."""
    spec = load_spec(SPEC)
    table = ReplayTable(spec, TABLE)
    configurations = [c for c in spec.space.enumerate() if table.lookup(*_key(table, c)) is not None][:count]
    with Store(url) as store:
        created = Study.create(store, study, spec)
        store.enqueue(created.id, [{"config": c.to_dict(), "config_key": c.key, "workload_key": c.workload_key,
                                    "repeat": 0, "benchmark": benchmark_spec(spec.space, c, spec.benchmark).to_dict()}
                                   for c in configurations])
    return [c.key for c in configurations]


def _key(table, configuration):
    storage, _ = table.key(configuration)
    return storage, benchmark_spec(table.spec.space, configuration, table.spec.benchmark)


def worker(url, tmp_path, *args, study="gt"):
    return subprocess.Popen([sys.executable, "-m", "iotune", "worker", "--study", study, "--db", url, "--runner",
                             f"replay:{TABLE}", "--scratch", tmp_path / "scratch", *map(str, args)],
                            env={**os.environ, "IOTUNE_PLAIN": "1"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def wait_until(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        assert time.monotonic() < deadline, f"{what} not seen within {timeout:g} s"
        time.sleep(0.1)
    return found


@pytest.mark.slow
def test_a_worker_runs_what_is_queued_and_leaves_when_no_controller_will_queue_more(tmp_path):
    url = f"sqlite:///{tmp_path}/s.db"
    keys = queue(url, 4)
    done = worker(url, tmp_path, "--replay-scale", "0", "--max-trials", "3")
    out, err = done.communicate(timeout=120)
    assert done.returncode == 0, err[-2000:]
    assert "3 trials completed, 0 failed" in err and "--max-trials" in err
    done = worker(url, tmp_path, "--replay-scale", "0")
    out, err = done.communicate(timeout=120)
    assert done.returncode == 0 and "the queue is empty and the study has no controller" in err, err[-2000:]
    with Store(url) as store:
        found = store.trials(study="gt")
    assert sorted(t.config_key for t in found) == sorted(keys) and {t.state for t in found} == {"COMPLETE"}
    assert all(t.runner == "replay" and t.extra["replay"]["table"] == TABLE.name for t in found)


@pytest.mark.slow
def test_sigterm_gives_the_trial_back_and_exits_143(tmp_path):
    url = f"sqlite:///{tmp_path}/s.db"
    queue(url, 2)
    running = worker(url, tmp_path, "--replay-scale", "100")
    with Store(url) as store:
        wait_until(lambda: store.trials(study="gt", state="RUNNING"), 60, "a running trial")
        running.send_signal(signal.SIGTERM)
        out, err = running.communicate(timeout=30)
        assert running.returncode == 143, err[-2000:]
        assert "SIGTERM" in err
        found = store.trials(study="gt")
        assert {t.state for t in found} == {"PENDING"} and {t.owner for t in found} == {None}

    status = subprocess.run([sys.executable, "-m", "iotune", "status", "--study", "gt", "--db", url, "--format",
                             "json"], capture_output=True, text=True, timeout=60)
    data = json.loads(status.stdout)
    assert data["counts"]["PENDING"] == 2 and data["controller"] is None and data["workers"] == []
    table = subprocess.run([sys.executable, "-m", "iotune", "status", "--study", "gt", "--db", url],
                           capture_output=True, text=True, timeout=60, env={**os.environ, "IOTUNE_PLAIN": "1"})
    assert "PENDING 2" in table.stderr and "controller: none" in table.stderr
    follow = subprocess.run([sys.executable, "-m", "iotune", "status", "--study", "gt", "--db", url, "--follow",
                             "--every", "0.2"], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "IOTUNE_PLAIN": "1"})
    assert follow.returncode == 0 and "2 trials are queued but nothing runs them" in follow.stderr


class _Lease:
    """The test holds the study's controller lease (renewed every second) so that workers wait for work."""

    def __init__(self, url, study="gt"):
        self.store, self.study, self.owner = Store(url), study, process_owner()
        self.stop = threading.Event()
        assert self.store.acquire_controller(study, self.owner) is None
        self.thread = threading.Thread(target=self._renew, daemon=True)
        self.thread.start()

    def _renew(self):
        while not self.stop.wait(1.0):
            self.store.renew_controller(self.study, self.owner)

    def release(self):
        self.stop.set()
        self.thread.join()
        self.store.release_controller(self.study, self.owner)
        self.store.close()


@pytest.mark.slow
@pytest.mark.requires_postgres
def test_a_worker_presumed_dead_never_records_the_trial_another_took_over(new_postgres_database, tmp_path):
    url = new_postgres_database()
    queue(url, 3)
    lease = _Lease(url)
    try:
        slow = worker(url, tmp_path, "--replay-scale", "20", "--grace", "3")
        with Store(url) as store:
            held = wait_until(lambda: store.trials(study="gt", state="RUNNING"), 60, "a running trial")[0]
            os.kill(slow.pid, signal.SIGSTOP)  # alive, but its heartbeat stops
            assert local_pid(held.owner) == slow.pid
            other = worker(url, tmp_path, "--replay-scale", "0", "--grace", "3")
            taken = wait_until(lambda: [t for t in store.trials(study="gt", state="COMPLETE") if t.id == held.id],
                               60, "the stopped worker's trial finished by the other")[0]
            os.kill(slow.pid, signal.SIGCONT)  # it wakes up, finishes its stale trial and tries to commit it
        lease.release()
        out, err = slow.communicate(timeout=60)
        assert slow.returncode == 0 and "1 results dropped" in err, err[-2000:]
        out, err = other.communicate(timeout=60)
        assert other.returncode == 0, err[-2000:]
        with Store(url) as store:
            final = store.get_trial(held.id)
            assert final.owner == taken.owner != held.owner and final.uid == taken.uid
            assert final.finished_at == taken.finished_at and len(final.phases) == 2
            assert {t.state for t in store.trials(study="gt")} == {"COMPLETE"}
    finally:
        if not lease.stop.is_set():
            lease.release()
        for process in [p for p in (locals().get("slow"), locals().get("other")) if p is not None]:
            if process.poll() is None:
                os.kill(process.pid, signal.SIGCONT)
                process.kill()
                process.wait()


def test_a_worker_started_before_its_study_waits_for_it(tmp_path):
    """Before: `iotune worker --study S` started before its controller created S (and the store) exited at once
    (issue 22, item 11)."""
    url = f"sqlite:///{tmp_path}/s.db"
    started = worker(url, tmp_path, "--replay-scale", "0", "--wait", "120")
    try:
        time.sleep(2)
        assert started.poll() is None, started.communicate()[1][-2000:]
        keys = queue(f"sqlite:///{tmp_path}/new.db", 2)
        assert not (tmp_path / "new.db-wal").exists()
        os.rename(tmp_path / "new.db", tmp_path / "s.db")  # store, study and queue appear at once
        out, err = started.communicate(timeout=120)
    finally:
        if started.poll() is None:
            started.kill()
            started.wait()
    assert started.returncode == 0 and "waiting up to 120 s for study gt" in err, err[-2000:]
    assert "2 trials completed, 0 failed" in err
    with Store(url) as store:
        assert sorted(t.config_key for t in store.trials(study="gt", state="COMPLETE")) == sorted(keys)


def test_a_worker_told_not_to_wait_says_the_study_is_missing(tmp_path):
    url = f"sqlite:///{tmp_path}/s.db"
    done = worker(url, tmp_path, "--wait", "0")
    _, err = done.communicate(timeout=60)
    assert done.returncode == 2 and err.strip().splitlines()[-1].startswith("error: no store at"), err
