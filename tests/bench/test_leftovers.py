"""A world torn down after a failure leaves nothing in /dev/shm or /tmp, and listens on loopback only.

The files a world must not leave are found by the test itself, from what the
world's processes map or hold open under /dev/shm and directly in /tmp while it
runs, whatever their names: MPICH's shared memory, hydra's hwloc topology, or
anything a later MPICH adds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from tests.processes import exposed, listening_sockets, temporary_files, wait_gone

from iotune.bench.world import WorkerWorld, find_mpiexec, process_tree
from iotune.records import BenchmarkSpec

pytestmark = pytest.mark.requires_mpi

SPEC = BenchmarkSpec(processes=2, api="POSIX", block_size=64 * 1024, transfer_size=64 * 1024)
LAUNCHERS = {"default": None, "hydra": "mpiexec.hydra"}


def mpiexec_for(launcher: str) -> str | None:
    name = LAUNCHERS[launcher]
    return None if name is None else str(Path(find_mpiexec()).parent / name)


def world_files(world: WorkerWorld) -> set[str]:
    return temporary_files(process_tree(world._proc.pid) + world.pids)


def fail_world(world: WorkerWorld, failure: str, trial_dir: Path) -> None:
    if failure == "killed_rank":
        os.kill(world.pids[1], signal.SIGKILL)
        wait_gone([world.pids[1]])
        world.close()
    else:
        assert world.run(SPEC, trial_dir).status == "FAILED"


FAILURES = {"crash": {"IOTUNE_TEST_CRASH_RANK": "1"}, "hang": {"IOTUNE_TEST_HANG_RANK": "1"}, "killed_rank": {}}


@pytest.mark.slow
@pytest.mark.parametrize("launcher", LAUNCHERS)
@pytest.mark.parametrize("failure", FAILURES)
def test_failed_worlds_leave_no_files(tmp_path, launcher, failure):
    leaked, seen = [], set()
    for _ in range(3):
        world = WorkerWorld(2, mpiexec=mpiexec_for(launcher), env=FAILURES[failure], timeout=2)
        world.ping()
        held = world_files(world)
        assert any(p.startswith("/dev/shm/") for p in held), f"no shared memory seen in the world: {held}"
        socket_dir, pids = world._dir, list(world.pids)
        fail_world(world, failure, tmp_path)
        world.close()
        assert not wait_gone(pids), "ranks outlived their world"
        seen |= held
        leaked += [p for p in held if os.path.exists(p)]
        assert not socket_dir.exists()
    assert leaked == [], f"left behind by {failure} worlds (of {sorted(seen)})"
    assert list(tmp_path.iterdir()) == []


CONTROLLER = textwrap.dedent("""\
    import sys
    from pathlib import Path
    from iotune.records import BenchmarkSpec
    from iotune.bench.world import WorkerWorld, process_tree
    world = WorkerWorld(2, mpiexec=sys.argv[2] or None, env={"IOTUNE_TEST_HANG_RANK": "1"}, timeout=600)
    world.start()
    print(world._dir, *process_tree(world._proc.pid), *world.pids, flush=True)
    world.run(BenchmarkSpec(processes=2, block_size=65536, transfer_size=65536), Path(sys.argv[1]))
""")


@pytest.mark.slow
@pytest.mark.parametrize("launcher", LAUNCHERS)
def test_a_killed_controller_leaves_no_files(tmp_path, launcher):
    controller = subprocess.Popen([sys.executable, "-c", CONTROLLER, str(tmp_path), mpiexec_for(launcher) or ""],
                                  stdout=subprocess.PIPE, text=True)
    socket_dir, *words = controller.stdout.readline().split()
    pids = sorted({int(w) for w in words})
    held = temporary_files(pids)
    assert any(p.startswith("/dev/shm/") for p in held), held
    time.sleep(1.0)  # rank 0 is now waiting in a collective for the hanging rank 1
    controller.kill()
    controller.wait()
    leftover = wait_gone(pids)
    for pid in leftover:
        os.kill(pid, signal.SIGKILL)
    assert not leftover, f"processes {leftover} outlived their controller"
    deadline = time.monotonic() + 5
    while any(os.path.exists(p) for p in held) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p for p in held if os.path.exists(p)] == []
    # the dead controller's socket directory goes with the next world this host starts
    assert Path(socket_dir).exists()
    with WorkerWorld(1, timeout=60) as world:
        world.ping()
    assert not Path(socket_dir).exists()


def test_a_world_listens_on_loopback_only():
    with WorkerWorld(2, timeout=60) as world:
        world.ping()
        sockets = listening_sockets(process_tree(world._proc.pid) + world.pids)
    assert exposed(sockets) == [], f"listening beyond loopback: {exposed(sockets)} (all: {sockets})"


def test_hydra_by_its_own_name_still_listens_everywhere():
    """The limitation documented in docs/architecture.md: hydra binds its control port to 0.0.0.0."""
    with WorkerWorld(2, mpiexec=mpiexec_for("hydra"), timeout=60) as world:
        world.ping()
        sockets = listening_sockets(process_tree(world._proc.pid) + world.pids)
    assert exposed(sockets)
