"""Build and tear down real testbeds: file systems, RAID0, scheduler, limits, state file."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from iotune.testbed import StorageConfig, Testbed, TestbedError, cgroup, list_testbeds, system

from .conftest import leftovers

pytestmark = pytest.mark.requires_root


def fs_type(mountpoint: Path) -> str:
    for line in Path("/proc/self/mounts").read_text().splitlines():
        fields = line.split()
        if fields[1] == str(mountpoint):
            return fields[2]
    return ""


def test_ext4_with_scheduler_and_limits_then_nothing_is_left(testbed_root):
    bed = Testbed(testbed_root)
    config = StorageConfig(fs="ext4", scheduler="mq-deadline", write_mbps=32, read_mbps=64, iops=1000)
    built = bed.build(config)
    device = built.devices[0]
    assert fs_type(built.mountpoint) == "ext4"
    assert system.schedulers(device)[1] == "mq-deadline"
    number = system.device_number(device)
    assert cgroup.limits(built.cgroup) == {"write_bps": {number: 32_000_000}, "read_bps": {number: 64_000_000},
                                           "write_iops": {number: 1000}, "read_iops": {number: 1000}}
    record = json.loads((built.state_dir / "state.json").read_text())
    assert record["images"] == [str(built.state_dir / "dev0.img")] and record["cgroup"] == str(built.cgroup)
    (built.mountpoint / "probe").write_bytes(b"x" * 4096)
    assert bed.teardown() == []
    assert bed.teardown() == []  # idempotent
    assert not built.cgroup.exists() and not built.state_dir.exists() and leftovers(testbed_root) == []
    assert system.schedulers(device)[1] == record["loops"][0]["scheduler_before"] or not Path(device).exists()


@pytest.mark.skipif(shutil.which("mkfs.xfs") is None, reason="mkfs.xfs not installed (xfsprogs)")
def test_xfs(make_testbed):
    built = make_testbed(StorageConfig(fs="xfs", size_mib=320)).built
    assert fs_type(built.mountpoint) == "xfs"


@pytest.mark.skipif(shutil.which("mkfs.btrfs") is None, reason="mkfs.btrfs not installed (btrfs-progs)")
def test_btrfs_raid0_over_two_devices_throttles_each(make_testbed):
    built = make_testbed(StorageConfig(fs="btrfs", devices=2, raid0=True, write_mbps=50)).built
    assert fs_type(built.mountpoint) == "btrfs" and len(built.devices) == 2
    limits = cgroup.limits(built.cgroup)["write_bps"]
    assert limits == {system.device_number(d): 50_000_000 for d in built.devices}
    if shutil.which("btrfs"):
        usage = subprocess.run(["btrfs", "filesystem", "df", str(built.mountpoint)], capture_output=True,
                               text=True).stdout
        assert "Data, RAID0" in usage and "Metadata, RAID0" in usage


def test_a_scheduler_the_device_lacks_is_a_clear_error_and_nothing_is_left(testbed_root, monkeypatch):
    monkeypatch.setattr(system, "schedulers", lambda device: (["none"], "none"))
    with Testbed(testbed_root) as bed:
        with pytest.raises(TestbedError, match="scheduler 'bfq' is not available for /dev/loop.*available: none"):
            bed.build(StorageConfig(scheduler="bfq"))
    assert list_testbeds(testbed_root) == [] and leftovers(testbed_root) == []


def test_context_manager_tears_down_on_error(testbed_root):
    with pytest.raises(RuntimeError, match="boom"):
        with Testbed(testbed_root) as bed:
            built = bed.build(StorageConfig())
            raise RuntimeError("boom")
    assert not built.cgroup.exists() and leftovers(testbed_root) == []


def test_a_tampered_state_file_is_refused(testbed_root):
    bed = Testbed(testbed_root)
    built = bed.build(StorageConfig())
    state_file = built.state_dir / "state.json"
    record = json.loads(state_file.read_text())
    record["images"].append("/etc/passwd")
    state_file.write_text(json.dumps(record))
    with pytest.raises(TestbedError, match="outside"):
        Testbed.open(built.state_dir)
    record["images"].pop()
    state_file.write_text(json.dumps(record))
    bed.teardown()
    assert leftovers(testbed_root) == []
