"""SIGTERM, SIGHUP and SIGINT end a campaign alike: trial left to --resume, nothing left behind, 128 + signal.

While the campaign runs, nothing it started listens on an address other than loopback.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iotune.store import Store
from tests.processes import default_signals, descendants, exposed, listening_sockets, temporary_files, wait_gone

pytestmark = pytest.mark.requires_mpi


def _trials(db):
    try:
        with Store(db) as store:
            return store.trials(study="tiny")
    except Exception:
        return []


def _world_dirs(pids):
    """Socket directories of the worlds whose ranks are among ``pids`` (from the ranks' command lines)."""
    found = set()
    for pid in pids:
        try:
            words = Path(f"/proc/{pid}/cmdline").read_text().split("\0")
        except OSError:
            continue
        if "iotune.bench.worker" in words:
            found.add(Path(words[words.index("iotune.bench.worker") + 1]).parent)
    return found


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143),
                                            pytest.param(signal.SIGHUP, 129, marks=pytest.mark.slow),
                                            pytest.param(signal.SIGINT, 130, marks=pytest.mark.slow)],
                         ids=["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_ends_the_campaign_cleanly(workdir, signum, status):
    db = workdir / "s.db"
    campaign = subprocess.Popen(
        [sys.executable, "-m", "iotune", "bench", "tiny.yaml", "--db", str(db), "--scratch", "scratch"],
        cwd=workdir, env={**os.environ, "IOTUNE_PLAIN": "1"}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, preexec_fn=default_signals)
    try:
        deadline = time.monotonic() + 120
        while sum(t.state == "COMPLETE" for t in _trials(db)) < 3 and time.monotonic() < deadline:
            assert campaign.poll() is None, campaign.stderr.read()
            time.sleep(0.05)
        tree = descendants(campaign.pid)
        sockets, held, world_dirs = listening_sockets(tree), temporary_files(tree), _world_dirs(tree)
        assert world_dirs and any(p.startswith("/dev/shm/") for p in held), (world_dirs, held)
        campaign.send_signal(signum)
        _, stderr = campaign.communicate(timeout=60)
    finally:
        if campaign.poll() is None:
            campaign.kill()
            campaign.wait()
    assert exposed(sockets) == [], f"the campaign listened beyond loopback: {sockets}"
    assert campaign.returncode == status, stderr
    assert "continue with --resume" in stderr and "Traceback" not in stderr
    assert wait_gone(tree) == [], "processes outlived the campaign"
    assert [p for p in held if os.path.exists(p)] == []
    assert [d for d in world_dirs if d.exists()] == []
    assert list((workdir / "scratch").iterdir()) == []
    states = [t.state for t in _trials(db)]
    assert "FAILED" not in states and states.count("RUNNING") <= 1 and states.count("COMPLETE") >= 3
