"""Issue 32, item 7: a SIGINT inherited as ignored (``nohup``, ``trap '' INT``, a background job of a script) is
respected by every command alike: a SIGINT sent mid-run does not stop it, and it ends as it would have."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GROUND_TRUTH = ROOT / "data" / "ground_truth"
SPEC = GROUND_TRUTH / "testbed_ground_truth.yaml"
REPLAY = ("--runner", f"replay:{GROUND_TRUTH / 'testbed_ground_truth.csv'}", "--replay-scale", "0.3")
WORKLOAD = "api=MPIIO,collective=true,file_per_process=false,transfer_size=256KiB"
COMMANDS = {
    "bench": ("bench", SPEC, "--budget", "4", "--sampler", "random", "--study", "b", *REPLAY),
    "tune": ("tune", SPEC, "--budget", "8", "--workload", WORKLOAD, "--study", "t", *REPLAY),
    "run": ("run", "-s", "b", "--", sys.executable, "-c", "import time; time.sleep(4)"),
    "report": ("report", "--study", "b", "-o", "r.html"),
}


def _ignoring_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.slow
def test_an_ignored_sigint_stays_ignored_by_every_command(tmp_path):
    db = tmp_path / "s.db"
    for name, command in COMMANDS.items():
        argv = [sys.executable, "-m", "iotune", command[0], "--db", str(db), *map(str, command[1:])]
        process = subprocess.Popen(argv, cwd=tmp_path, env={**os.environ, "IOTUNE_PLAIN": "1"}, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, preexec_fn=_ignoring_sigint)
        time.sleep(2.5)  # past the imports, into the command's work
        assert process.poll() is None, f"{name} ended before the signal: {process.communicate()[1][-2000:]}"
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=300)
        assert process.returncode == 0 and "interrupted" not in err, f"{name}: {err[-2000:]}"
