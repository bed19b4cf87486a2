"""Workers never outlive a controller that was killed, even when a rank is stuck in a collective."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.requires_mpi

CONTROLLER = textwrap.dedent("""\
    import sys, time
    from pathlib import Path
    from iotune.records import BenchmarkSpec
    from iotune.bench.world import WorkerWorld
    world = WorkerWorld(2, env={"IOTUNE_TEST_HANG_RANK": "1"}, timeout=600)
    world.start()
    print(" ".join(map(str, world.pids)), flush=True)
    world.run(BenchmarkSpec(processes=2, block_size=65536, transfer_size=65536), Path(sys.argv[1]))
""")


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_ranks_exit_after_the_controller_is_killed_mid_trial(tmp_path):
    controller = subprocess.Popen([sys.executable, "-c", CONTROLLER, str(tmp_path)], stdout=subprocess.PIPE,
                                  text=True)
    pids = [int(p) for p in controller.stdout.readline().split()]
    assert len(pids) == 2
    time.sleep(1.0)  # rank 0 is now waiting in a collective for the hanging rank 1
    os.kill(controller.pid, signal.SIGKILL)
    controller.wait()
    deadline = time.monotonic() + 15
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    leftover = [pid for pid in pids if _alive(pid)]
    for pid in leftover:
        os.kill(pid, signal.SIGKILL)
    assert not leftover, f"ranks {leftover} outlived their controller"
