"""A world whose ranks run on several hosts: only ranks of the controller's own host are judged by /proc."""

import os

import pytest

from iotune.bench.world import WorkerWorld, dead_local_ranks
from iotune.owner import Owner, current_owner, local_pid, process_owner, process_start


def _dead_local_owner() -> str:
    """The stored owner of a process of this host that has exited."""
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    me = current_owner()
    owner = Owner(me.host, me.boot, me.pidns, pid, process_start(pid) or 1)
    os.waitpid(pid, 0)
    return owner.text


def _remote(pid: int) -> str:
    """Another host's rank whose pid happens to be live here."""
    return f"othernode_0bad0b00_1_{pid}_1"


def test_only_local_ranks_can_be_declared_dead():
    assert dead_local_ranks([process_owner(), _remote(os.getpid()), _dead_local_owner()]) == [2]
    assert dead_local_ranks([]) == []


def test_local_pid_is_given_only_for_live_processes_of_this_host():
    assert local_pid(process_owner()) == os.getpid()
    assert local_pid(_remote(os.getpid())) is None
    assert local_pid(_dead_local_owner()) is None
    assert local_pid(None) is None and local_pid("not-an-owner") is None


@pytest.mark.requires_mpi
def test_killing_a_world_never_touches_processes_that_only_share_a_remote_ranks_pid():
    with WorkerWorld(2, timeout=60) as alive, WorkerWorld(1, timeout=60) as other:
        alive.start()
        assert len(alive.owners) == 2 and all(local_pid(o) == p for o, p in zip(alive.owners, alive.pids))
        assert len(alive.rank_nodes) == 2
        other.start()
        # pretend ``other`` had ranks on another host whose pids are those of ``alive``'s ranks here
        other._st["pids"] = alive.pids
        other._st["owners"] = [_remote(pid) for pid in alive.pids]
        other.kill()
        assert alive.ping() == alive.pids
