"""A world whose ranks run on several hosts: only ranks of the controller's own host are judged by /proc."""

import os

import pytest

from iotune.bench.world import WorkerWorld, dead_local_ranks
from iotune.owner import local_pid, process_owner


def _dead_local_owner() -> str:
    """The owner of a process of this host that has exited."""
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    owner = process_owner(pid)
    os.waitpid(pid, 0)
    return owner.rsplit(":", 1)[0] + ":12345"  # a start time no live process has


def test_only_local_ranks_can_be_declared_dead():
    me = process_owner()
    remote = f"othernode:{os.getpid()}:0badboot:1"  # another host's rank, whose pid happens to be live here
    dead = _dead_local_owner()
    assert dead_local_ranks([me, remote, dead]) == [2]
    assert dead_local_ranks([]) == []


def test_local_pid_is_given_only_for_live_processes_of_this_host():
    assert local_pid(process_owner()) == os.getpid()
    assert local_pid(f"othernode:{os.getpid()}:0badboot:1") is None
    assert local_pid(_dead_local_owner()) is None
    assert local_pid(None) is None and local_pid("not-an-owner") is None


@pytest.mark.requires_mpi
def test_killing_a_world_never_touches_processes_that_only_share_a_remote_ranks_pid():
    with WorkerWorld(2, timeout=60) as alive, WorkerWorld(1, timeout=60) as other:
        alive.start()
        assert len(alive.owners) == 2 and all(local_pid(o) == p for o, p in zip(alive.owners, alive.pids))
        assert alive.nodes and len(alive.nodes) == 2
        other.start()
        # pretend ``other`` had ranks on another host whose pids are those of ``alive``'s ranks here
        other._st["pids"] = alive.pids
        other._st["owners"] = [f"othernode:{pid}:0badboot:1" for pid in alive.pids]
        other.kill()
        assert alive.ping() == alive.pids
