"""``iotune testbed build`` killed with SIGKILL at any early moment: ``iotune testbed cleanup`` removes it all."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from iotune.testbed.cgroup import BLKIO_ROOT

from .conftest import run_cli

pytestmark = pytest.mark.requires_root

# The moment to kill at, as seen in the state file (the builder runs on for a few more milliseconds),
# or while the builder waits for mkfs, which then runs on by itself.
STAGES = {
    "directory": lambda record, children: True,
    "image": lambda record, children: bool(record and record["images"]),
    "loop": lambda record, children: bool(record and record["loops"]),
    "mkfs": lambda record, children: any(name.startswith("mkfs") for name in children),
}
# The last stages last milliseconds, less than a poll of the state file on a loaded machine: the builder kills
# itself at the Python audit event that starts them (event, a substring of its first argument).
SELF_KILLED_STAGES = {
    "mountpoint": ("os.mkdir", "/mnt"),  # the mountpoint recorded, not yet made or mounted
    "cgroup": ("open", "blkio.throttle."),  # the cgroup made, its throttles not yet set
}
KILL_ITSELF_AT = textwrap.dedent("""\
    import os, runpy, signal, sys
    event, needle = sys.argv[1:3]
    def kill_at(name, args):
        if name == event and args and needle in str(args[0]):
            os.kill(os.getpid(), signal.SIGKILL)
    sys.addaudithook(kill_at)
    sys.argv = ["iotune", *sys.argv[3:]]
    runpy.run_module("iotune", run_name="__main__", alter_sys=True)
""")


def _children(pid: int) -> list[str]:
    """Command names of the running children of ``pid``."""
    names = []
    for entry in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if entry.isdigit() and stat.rsplit(")", 1)[1].split()[1] == str(pid):
            names.append(stat[stat.index("(") + 1:stat.rindex(")")])
    return names


def _record(directory: Path) -> dict | None:
    try:
        return json.loads((directory / "state.json").read_text())
    except (OSError, ValueError):
        return None


def kill_build_at(root: Path, stage: str) -> list[str]:
    """Start ``iotune testbed build``, SIGKILL it once ``stage`` is reached; the testbed names seen."""
    # a large device makes mkfs write its inode tables for seconds, outliving the killed builder
    size = "8192" if stage == "mkfs" else "512"
    arguments = ["testbed", "build", "--dir", str(root), "--write-mbps", "20", "--size-mib", size]
    command = ([sys.executable, "-c", KILL_ITSELF_AT, *SELF_KILLED_STAGES[stage], *arguments]
               if stage in SELF_KILLED_STAGES else [sys.executable, "-m", "iotune", *arguments])
    build = subprocess.Popen(command, env={**os.environ, "IOTUNE_PLAIN": "1"},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/")
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and build.poll() is None:
            beds = [d for d in root.iterdir() if d.is_dir()]
            if stage in STAGES and beds and STAGES[stage](_record(beds[0]),
                                                           _children(build.pid) if stage == "mkfs" else []):
                break
            time.sleep(0.001)
    finally:
        build.kill()
        returncode = build.wait()
    assert stage in STAGES or returncode == -signal.SIGKILL, f"the build ended with {returncode}, not at {stage}"
    return [d.name for d in root.iterdir() if d.is_dir()]


def resources(root: Path, names: list[str]) -> list[str]:
    """Loop devices and mounts under ``root`` and the cgroups of testbeds ``names`` that still exist."""
    found = [line for line in subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout.splitlines()
             if str(root) in line]
    found += [line for line in Path("/proc/mounts").read_text().splitlines() if str(root) in line]
    found += [str(BLKIO_ROOT / f"iotune-{name}") for name in names if (BLKIO_ROOT / f"iotune-{name}").exists()]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("stage", [*STAGES, *SELF_KILLED_STAGES])
def test_cleanup_removes_a_build_killed_early(testbed_root, stage):
    from iotune.testbed import cleanup

    root = testbed_root.resolve()
    for _ in range(5):  # the last stages last milliseconds: a kill may come after the build finished; try again
        names = kill_build_at(root, stage)
        assert names, "the build was killed before it made its directory"
        finished = [d for d in root.iterdir() if (_record(d) or {}).get("owner", 1) is None]
        if not finished:
            break
        cleanup(root, include_persistent=True)
    assert not finished, "the build had finished every time"
    if stage in SELF_KILLED_STAGES:
        assert resources(root, names), "the build was killed before it attached its devices"
    result = run_cli("testbed", "cleanup", "--dir", root)
    assert result.returncode == 0, result.stderr
    assert resources(root, names) == []
    assert [d for d in root.iterdir() if (d / "state.json").exists()] == []


ORPHAN = textwrap.dedent("""\
    import sys
    from iotune.testbed import system
    with system.steps_of(sys.argv[1]):
        system.run(["sleep", "300"], timeout=600)
""")


def _sleepers() -> set[int]:
    return {int(e) for e in os.listdir("/proc") if e.isdigit() and _cmdline(e) == "sleep\x00300\x00"}


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return ""


def test_a_step_left_running_by_a_killed_builder_is_stopped_before_teardown(tmp_path):
    """A builder killed while its command runs leaves the command behind; teardown ends exactly that command."""
    from iotune.testbed import system

    mine, other = tmp_path / "bed-1", tmp_path / "bed-10"
    before = _sleepers()
    builders = [subprocess.Popen([sys.executable, "-c", ORPHAN, str(d)]) for d in (mine, other)]
    try:
        deadline = time.monotonic() + 30
        while len(_sleepers() - before) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        orphans = _sleepers() - before
        assert len(orphans) == 2
        for builder in builders:
            builder.kill()
            builder.wait()
        stopped = system.stop_steps(mine)
        assert len(stopped) == 1 and stopped[0] in orphans
        assert _sleepers() - before == orphans - set(stopped), "the other testbed's command must keep running"
    finally:
        for builder in builders:
            builder.kill()
            builder.wait()
        system.stop_steps(mine)
        system.stop_steps(other)
    assert _sleepers() - before == set()
