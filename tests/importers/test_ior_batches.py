"""Issue 22, item 6: import-ior stores repetitions a batch at a time with a progress line per batch; a killed
import leaves whole trials only and a re-run adds exactly the rest."""

import os
import signal
import subprocess
import sys

from benchmarks.import_speed import ior_json

from iotune.importers.ior import BATCH
from iotune.store import Store

REPETITIONS = 3 * BATCH + 500


def test_a_killed_import_keeps_whole_trials_and_a_rerun_adds_the_rest(tmp_path):
    source, db = tmp_path / "ior.json", tmp_path / "s.db"
    ior_json(source, REPETITIONS)
    command = [sys.executable, "-m", "iotune", "import-ior", source, "--study", "ior", "--db", db]
    env = {**os.environ, "IOTUNE_PLAIN": "1"}
    child = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    first = child.stderr.readline()
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert first.startswith(f"importing IOR repetitions: {BATCH}/{REPETITIONS}")
    with Store(db) as store:
        kept = store.trials(study="ior")
    assert kept and len(kept) % BATCH == 0 and len(kept) < REPETITIONS
    assert {t.state for t in kept} == {"COMPLETE"} and all(len(t.phases) == 2 for t in kept)
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{REPETITIONS - len(kept)} trials added" in done.stdout + done.stderr
    assert f"{len(kept)} already there" in done.stdout + done.stderr
    with Store(db) as store:
        trials = store.trials(study="ior")
    assert len(trials) == REPETITIONS
    assert len({(t.config_key, t.repeat) for t in trials}) == REPETITIONS
    assert sorted(t.repeat for t in trials) == list(range(REPETITIONS))
