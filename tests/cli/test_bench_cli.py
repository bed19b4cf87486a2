"""The campaign commands end to end with real MPI: run, kill with SIGKILL, resume, report, export."""

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from iotune.store import Store
from tests.cli.conftest import run_iotune

pytestmark = pytest.mark.requires_mpi


def _complete(db):
    try:
        with Store(db) as store:
            return [t for t in store.trials(study="tiny") if t.state == "COMPLETE"]
    except Exception:
        return []


def _worker_pids():
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if b"iotune.bench.worker" in handle.read():
                        pids.append(int(entry))
            except OSError:
                pass
    return pids


@pytest.mark.slow
def test_killed_campaign_resumes_without_losing_or_repeating_trials(workdir):
    db = workdir / "s.db"
    before_workers = set(_worker_pids())
    process = subprocess.Popen(
        [sys.executable, "-m", "iotune", "bench", "tiny.yaml", "--db", str(db), "--scratch", "scratch"],
        cwd=workdir, env={**os.environ, "IOTUNE_PLAIN": "1"}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while len(_complete(db)) < 8 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    assert process.poll() is None, "the campaign ended before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait()
    done_before = {t.uid: (t.config_key, t.repeat, t.finished_at) for t in _complete(db)}
    assert 8 <= len(done_before) < 36

    deadline = time.monotonic() + 30
    while set(_worker_pids()) - before_workers and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not set(_worker_pids()) - before_workers, "MPI workers outlived their controller"

    result = run_iotune("bench", "tiny.yaml", "--db", db, "--scratch", "scratch", cwd=workdir)
    assert result.returncode == 2 and "--resume" in result.stderr

    result = run_iotune("bench", "tiny.yaml", "--db", db, "--scratch", "scratch", "--resume", cwd=workdir)
    assert result.returncode == 0, result.stderr
    assert f"{len(done_before)} already in the store" in result.stderr

    with Store(db) as store:
        trials = store.trials(study="tiny")
    assert len(trials) == 36 and {t.state for t in trials} == {"COMPLETE"}
    assert Counter((t.config_key, t.repeat) for t in trials).most_common(1)[0][1] == 1
    after = {t.uid: (t.config_key, t.repeat, t.finished_at) for t in trials}
    assert all(after[uid] == value for uid, value in done_before.items()), "finished trials were re-run"
    assert list((workdir / "scratch").iterdir()) == []


@pytest.mark.slow
def test_results_and_export_after_a_campaign(workdir):
    db = workdir / "s.db"
    result = run_iotune("bench", "tiny.yaml", "--db", db, "--scratch", "scratch", "--repeats", "1", cwd=workdir)
    assert result.returncode == 0, result.stderr

    table = run_iotune("results", "--db", db, cwd=workdir)
    assert table.returncode == 0 and "fastest configuration per workload" in table.stdout

    best = json.loads(run_iotune("results", "--db", db, "--format", "json", cwd=workdir).stdout)
    assert len(best) == 3 and {b["configurations"] for b in best} == {6}
    for entry in best:
        assert entry["speedup_vs_worst"] >= 1.0 and entry["best"]["repeats"] == 1

    raw = run_iotune("results", "--trials", "--db", db, "--format", "csv", cwd=workdir).stdout.splitlines()
    assert len(raw) == 1 + 18  # header + one row per trial

    assert run_iotune("export", "out.json", "--db", db, cwd=workdir).returncode == 0
    merged = run_iotune("import", "out.json", "--db", workdir / "other.db", cwd=workdir)
    assert merged.returncode == 0 and "18 trials added" in merged.stderr
    again = run_iotune("import", "out.json", "--db", workdir / "other.db", cwd=workdir)
    assert "0 trials added" in again.stderr and "18 duplicates skipped" in again.stderr
