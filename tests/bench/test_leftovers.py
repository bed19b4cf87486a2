"""A world torn down after a failure leaves nothing in /dev/shm or /tmp, and listens on loopback only.

The files a world must not leave are found by the test itself, from what the
world's processes map or hold open under /dev/shm and directly in /tmp while it
runs, whatever their names: MPICH's shared memory, hydra's hwloc topology, or
anything a later MPICH adds.
"""

from __future__ import annotations

import ipaddress
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from iotune.bench.trial import BenchmarkSpec
from iotune.bench.world import WorkerWorld, find_mpiexec, process_tree

pytestmark = pytest.mark.requires_mpi

SPEC = BenchmarkSpec(processes=2, api="POSIX", block_size=64 * 1024, transfer_size=64 * 1024)
LAUNCHERS = {"default": None, "hydra": "mpiexec.hydra"}


def mpiexec_for(launcher: str) -> str | None:
    name = LAUNCHERS[launcher]
    return None if name is None else str(Path(find_mpiexec()).parent / name)


def temporary_files(pids: list[int]) -> set[str]:
    """Files under /dev/shm, and files directly in /tmp, that ``pids`` map or hold open (not deleted ones)."""
    found = set()
    for pid in pids:
        paths = []
        try:
            paths += [line.split(maxsplit=5)[5] for line in Path(f"/proc/{pid}/maps").read_text().splitlines()
                      if len(line.split(maxsplit=5)) == 6]
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    paths.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
                except OSError:
                    pass
        except OSError:
            continue
        found |= {p for p in paths if not p.endswith(" (deleted)")
                  and (p.startswith("/dev/shm/") or Path(p).parent == Path("/tmp"))}
    return found


def world_files(world: WorkerWorld) -> set[str]:
    return temporary_files(process_tree(world._proc.pid) + world.pids)


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pids: list[int], seconds: float = 15.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if alive(pid)]


def fail_world(world: WorkerWorld, failure: str, trial_dir: Path) -> None:
    if failure == "killed_rank":
        os.kill(world.pids[1], signal.SIGKILL)
        wait_gone([world.pids[1]])
        world.close()
    else:
        assert world.run(SPEC, trial_dir).status == "FAILED"


FAILURES = {"crash": {"IOTUNE_TEST_CRASH_RANK": "1"}, "hang": {"IOTUNE_TEST_HANG_RANK": "1"}, "killed_rank": {}}


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
    from iotune.bench.trial import BenchmarkSpec
    from iotune.bench.world import WorkerWorld, process_tree
    world = WorkerWorld(2, mpiexec=sys.argv[2] or None, env={"IOTUNE_TEST_HANG_RANK": "1"}, timeout=600)
    world.start()
    print(world._dir, *process_tree(world._proc.pid), *world.pids, flush=True)
    world.run(BenchmarkSpec(processes=2, block_size=65536, transfer_size=65536), Path(sys.argv[1]))
""")


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


def listening_sockets(pids: list[int]) -> list[tuple[str, int]]:
    """(address, port) of every TCP socket in LISTEN and every bound UDP socket that ``pids`` hold."""
    inodes = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    found = []
    for table, listening in (("tcp", "0A"), ("tcp6", "0A"), ("udp", "07"), ("udp6", "07")):
        try:
            lines = Path(f"/proc/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] != listening or fields[9] not in inodes:
                continue
            address, port = fields[1].split(":")
            raw = bytes.fromhex(address)
            # /proc/net prints the address as 32-bit words in host (little-endian) order
            packed = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
            found.append((str(ipaddress.ip_address(packed)), int(port, 16)))
    return found


def test_a_world_listens_on_loopback_only():
    with WorkerWorld(2, timeout=60) as world:
        world.ping()
        sockets = listening_sockets(process_tree(world._proc.pid) + world.pids)
    exposed = [s for s in sockets if not ipaddress.ip_address(s[0]).is_loopback]
    assert exposed == [], f"listening beyond loopback: {exposed} (all: {sockets})"


def test_hydra_by_its_own_name_still_listens_everywhere():
    """The limitation documented in docs/architecture.md: hydra binds its control port to 0.0.0.0."""
    with WorkerWorld(2, mpiexec=mpiexec_for("hydra"), timeout=60) as world:
        world.ping()
        sockets = listening_sockets(process_tree(world._proc.pid) + world.pids)
    assert any(not ipaddress.ip_address(address).is_loopback for address, _ in sockets)
