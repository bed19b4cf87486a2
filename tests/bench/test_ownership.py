"""Trial directories are named by host and owner; the sweep removes only what this host provably owns."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap

import pytest

from iotune.bench.ownership import current_owner, parse_owner, process_start, provably_gone
from iotune.bench.runner import TRIAL_PREFIX, make_trial_dir, remove_stale_trial_dirs

MAKE_AND_EXIT = textwrap.dedent("""\
    import sys
    from iotune.bench.runner import make_trial_dir
    trial = make_trial_dir(sys.argv[1])
    (trial / "testFile").write_bytes(b"left by a SIGKILL")
    print(trial.name)
""")


def trial_dir_of_a_process_that_exited(scratch, prefix=()) -> str:
    """Name of a trial directory made by a child that then exited (as after a SIGKILL), optionally under ``prefix``."""
    done = subprocess.run([*prefix, sys.executable, "-c", MAKE_AND_EXIT, str(scratch)], capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def test_a_trial_dir_names_its_host_and_owner(tmp_path):
    trial = make_trial_dir(tmp_path)
    owner = parse_owner(trial.name, TRIAL_PREFIX)
    assert trial.parent == tmp_path.resolve()
    assert owner == current_owner() and owner.pid == os.getpid() and owner.start == process_start(os.getpid())
    assert not provably_gone(owner)


def test_the_sweep_removes_dirs_of_dead_owners_of_this_host_only(tmp_path):
    dead = tmp_path / trial_dir_of_a_process_that_exited(tmp_path)
    mine = make_trial_dir(tmp_path)
    me = current_owner()
    # a live pid with another start time is a reused pid: its owner is gone
    reused = tmp_path / (TRIAL_PREFIX + dataclasses.replace(me, start=me.start + 1).tag + "reused")
    others = [tmp_path / (TRIAL_PREFIX + dataclasses.replace(me, start=1, **change).tag + "x")
              for change in ({"host": "other-node"}, {"boot": "0123456789ab"}, {"pidns": me.pidns + 1})]
    old_style = tmp_path / f"{TRIAL_PREFIX}999999999-abc"  # iotune < 0.x names: the host is unknown
    unrelated = tmp_path / "user-data"
    for directory in (reused, *others, old_style, unrelated):
        directory.mkdir()
    assert (dead / "testFile").exists()
    removed = remove_stale_trial_dirs(tmp_path)
    assert sorted(removed) == sorted([dead, reused])
    assert all(d.exists() for d in (mine, *others, old_style, unrelated))


@pytest.mark.requires_root
@pytest.mark.parametrize("namespaces", [["--uts"], ["--pid", "--fork"]], ids=["other-host", "other-container"])
def test_another_nodes_trial_dir_is_never_swept(tmp_path, namespaces):
    """A node with another host name, or a container with other pids, shares the scratch: its dirs stay."""
    rename = ["sh", "-c", 'hostname other-node && exec "$@"', "sh"] if "--uts" in namespaces else []
    name = trial_dir_of_a_process_that_exited(tmp_path, ["unshare", *namespaces, *rename])
    owner = parse_owner(name, TRIAL_PREFIX)
    assert owner is not None and (owner.host, owner.pidns) != (current_owner().host, current_owner().pidns)
    assert remove_stale_trial_dirs(tmp_path) == []
    assert (tmp_path / name / "testFile").exists()
