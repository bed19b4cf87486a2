"""Testbed fixtures: every testbed lives in the test's own state directory and is torn down at the end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unprivileged import run_as


def leftovers(root: Path) -> list[str]:
    """Loop devices, mounts and cgroups that still refer to testbeds under ``root``."""
    from iotune.testbed.cgroup import BLKIO_ROOT

    root = str(Path(root).resolve())
    found = [line for line in subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout.splitlines()
             if root in line]
    found += [line for line in Path("/proc/self/mounts").read_text().splitlines() if root in line]
    names = {p.name for p in Path(root).iterdir()} if Path(root).is_dir() else set()
    found += [str(p) for p in BLKIO_ROOT.glob("iotune-*") if p.name.removeprefix("iotune-") in names]
    return found


@pytest.fixture
def testbed_root(tmp_path):
    """A private state directory; on exit every testbed in it is torn down and nothing may be left behind."""
    from iotune.testbed import cleanup, support_problem

    problem = support_problem()
    if problem:
        pytest.skip(f"requires_root: {problem}")
    root = tmp_path / "testbeds"
    root.mkdir()
    yield root
    cleanup(root, include_persistent=True)
    assert leftovers(root) == []


@pytest.fixture
def make_testbed(testbed_root):
    """Factory: a built Testbed in ``testbed_root`` for a StorageConfig; torn down after the test."""
    from iotune.testbed import Testbed

    beds = []

    def make(config):
        bed = Testbed(testbed_root)
        beds.append(bed)
        bed.build(config)
        return bed

    yield make
    for bed in beds:
        bed.teardown()


def run_cli(*args, user: str | None = None, env: dict | None = None, timeout: float = 120):
    """Run ``python -m iotune`` (as ``user`` via setpriv when given and we are root, else as ourselves)."""
    environment = {**os.environ, "IOTUNE_PLAIN": "1", **(env or {})}
    command = [sys.executable, "-m", "iotune", *map(str, args)]
    if user is not None and os.geteuid() == 0:
        return run_as(user, command, capture_output=True, text=True, env=environment, timeout=timeout, cwd="/")
    return subprocess.run(command, capture_output=True, text=True, env=environment, timeout=timeout, cwd="/")
