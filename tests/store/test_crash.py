"""A campaign killed with SIGKILL loses nothing it finished, and several processes can share one store."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest
from store_helpers import complete

from iotune.store import Store

_PRELUDE = """
import sys, time
from iotune.records import Measurement, PhaseResult
from iotune.store import Store

def measurement(i):
    return Measurement("COMPLETE", [PhaseResult("write", 2**20, 0.1 + i, 0.0, 0.1, 0.0, 4),
                                    PhaseResult("read", 2**20, 0.05, 0.0, 0.05, 0.0, 4, 0)])

store = Store(sys.argv[1])
"""

CAMPAIGN = _PRELUDE + """
study = store.create_study("crash", "", "h", {})
platform = store.register_platform({"hostname": "n1"})
for i in range(3):
    trial = store.start_trial(study.id, {"i": i}, f"k{i}", "w", 0, platform, None)
    store.finish_trial(trial, measurement(i))
trial = store.start_trial(study.id, {"i": 3}, "k3", "w", 0, platform, None)
print(trial, flush=True)
time.sleep(120)
"""

ENDLESS = _PRELUDE + """
study = store.get_study("crash") or store.create_study("crash", "", "h", {})
i = 0
while True:
    trial = store.start_trial(study.id, {"i": i}, f"k{i}", "w", int(sys.argv[2]), None, None)
    store.finish_trial(trial, measurement(i))
    print(i, flush=True)
    i += 1
"""


def _spawn(script: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _kill(proc: subprocess.Popen) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read()


def _line(proc: subprocess.Popen) -> str:
    line = proc.stdout.readline()
    if not line:
        proc.wait(timeout=30)
        pytest.fail(f"child exited {proc.returncode}: {proc.stderr.read()[-2000:]}")
    return line


def test_sigkill_keeps_finished_trials_and_leaves_one_running(new_url):
    url = new_url()
    proc = _spawn(CAMPAIGN, url)
    in_flight = int(_line(proc))
    _kill(proc)
    with Store(url) as store:
        study = store.get_study("crash")
        states = store.trial_states(study.id)
        assert states == {("k0", 0): "COMPLETE", ("k1", 0): "COMPLETE", ("k2", 0): "COMPLETE", ("k3", 0): "RUNNING"}
        for trial in store.trials("crash", state="COMPLETE"):
            assert [p.phase for p in trial.phases] == ["write", "read"]
        assert store.running_trials(study.id) == [in_flight]
        again = store.start_trial(study.id, {"i": 3}, "k3", "w", 0, None, None)
        assert again == in_flight
        store.finish_trial(again, complete())
        assert store.running_trials(study.id) == []
        assert len(store.trials("crash", state="COMPLETE")) == 4


def test_sigkill_at_a_random_moment_never_corrupts(new_url, backend):
    url = new_url()
    proc = _spawn(ENDLESS, url, "0")
    for _ in range(15):
        _line(proc)
    _kill(proc)
    with Store(url) as store:
        trials = store.trials("crash")
        done = [t for t in trials if t.state == "COMPLETE"]
        assert len(done) >= 15
        assert all(len(t.phases) == 2 for t in done)
        assert [t.state for t in trials if t.state != "COMPLETE"] in ([], ["RUNNING"])
        if backend == "sqlite":
            with store._read() as conn:
                assert conn.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"


def test_concurrent_campaigns_share_one_store(new_url):
    url = new_url()
    with Store(url) as store:
        store.create_study("crash", "", "h", {})
    workers = [_spawn(ENDLESS, url, str(repeat)) for repeat in range(3)]
    for proc in workers:
        for _ in range(10):
            _line(proc)
    for proc in workers:
        _kill(proc)
    with Store(url) as store:
        trials = store.trials("crash")
        assert len({t.repeat for t in trials if t.state == "COMPLETE"}) == 3
        assert sum(t.state == "COMPLETE" for t in trials) >= 30
        assert all(len(t.phases) == 2 for t in trials if t.state == "COMPLETE")
        assert len(store.list_studies()) == 1
