"""Every sampler through `iotune bench --sampler NAME --budget N` on the real runner, SIGKILLed and resumed."""

import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from iotune.samplers import SAMPLERS
from iotune.store import Store
from tests.cli.conftest import run_iotune

pytestmark = [pytest.mark.requires_mpi, pytest.mark.slow]

SPEC = """\
name: walk
parameters:
  - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio}
  - {name: cb_buffer_size, type: size, levels: [64KiB, 256KiB, 1MiB, 4MiB], role: system, layer: mpiio}
  - {name: cb_nodes, type: integer, levels: [1, 2], role: system, layer: mpiio}
  - {name: romio_ds_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio}
benchmark: {api: MPIIO, processes: 2, block_size: 256KiB, transfer_size: 64KiB, collective: true}
campaign: {repeats: 1, seed: 3}
"""
BUDGET = 12


def _trials(db):
    try:
        with Store(db) as store:
            return store.trials(study="walk")
    except Exception:
        return []


@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
def test_each_sampler_runs_and_resumes_after_sigkill_without_repeating(tmp_path, sampler):
    (tmp_path / "scratch").mkdir()
    (tmp_path / "walk.yaml").write_text(SPEC)
    db = tmp_path / "s.db"
    budget = 16 if sampler in ("screening", "pb-collect", "pb-walk") else BUDGET  # a foldover design's size
    args = ["bench", "walk.yaml", "--db", str(db), "--scratch", "scratch", "--sampler", sampler,
            "--budget", str(budget)]
    process = subprocess.Popen([sys.executable, "-m", "iotune", *args], cwd=tmp_path,
                               env={**os.environ, "IOTUNE_PLAIN": "1"}, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while sum(t.state == "COMPLETE" for t in _trials(db)) < 3 and time.monotonic() < deadline \
            and process.poll() is None:
        time.sleep(0.05)
    killed = process.poll() is None
    process.send_signal(signal.SIGKILL)
    process.wait()
    before = {t.uid: (t.config_key, t.finished_at) for t in _trials(db) if t.state == "COMPLETE"}
    assert len(before) >= 3

    result = run_iotune(*args, "--resume", cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    trials = _trials(db)
    assert {t.state for t in trials} <= {"COMPLETE", "INVALID"}
    assert Counter((t.config_key, t.repeat) for t in trials).most_common(1)[0][1] == 1, "a stored run was re-run"
    if not SAMPLERS[sampler].remeasures:
        # a sampler that remeasures (transfer) may choose a configuration again, as a new repeat: in an
        # uninterrupted run too (1 of 15 here re-ran its best so far as the 12th run)
        assert Counter(t.config_key for t in trials).most_common(1)[0][1] == 1, "a stored configuration was re-run"
    assert all(next(t for t in trials if t.uid == uid).finished_at == value[1] for uid, value in before.items())
    assert len(trials) <= budget and (not killed or len(trials) > len(before))
    again = run_iotune(*args, "--resume", cwd=tmp_path, timeout=300)
    assert again.returncode == 0 and "0 trials completed" in again.stderr and len(_trials(db)) == len(trials)
    assert list((tmp_path / "scratch").iterdir()) == []
