"""The CephFS testbed: monitor, throttled OSDs, MDS and ceph-fuse started by iotune, removed to the last process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iotune.errors import IotuneError
from iotune.testbed import StorageConfig
from iotune.testbed.cgroup import BLKIO_ROOT, limits
from iotune.testbed.system import STEP_ENV

from .conftest import run_cli


@pytest.mark.parametrize("kwargs, message", [
    ({"devices": 9}, "a cephfs testbed has 1 to 8 servers"),
    ({"devices": 3, "raid0": True}, "raid0 does not apply to cephfs"),
    ({"size_mib": 512}, "size_mib must be an integer >= 1024 for cephfs"),
    ({"mount_options": "noatime"}, "mount_options of cephfs must be ceph-fuse client settings"),
    ({"mount_options": "client_oc_size=1;rm"}, "mount_options of cephfs"),
])
def test_invalid_cephfs_configs_name_the_parameter(kwargs, message):
    with pytest.raises(IotuneError, match=message):
        StorageConfig(fs="cephfs", **{"size_mib": 2048, **kwargs})


def test_cephfs_takes_three_servers_and_client_settings():
    config = StorageConfig(fs="cephfs", devices=3, size_mib=2048,
                           mount_options="client_oc_size=67108864,client_oc_max_dirty=33554432")
    assert config.client_options == {"client_oc_size": "67108864", "client_oc_max_dirty": "33554432"}


def test_server_options_need_cephfs(tmp_path):
    result = run_cli("testbed", "build", "--dir", tmp_path, "--servers", "3")
    assert result.returncode == 2
    assert result.stderr.strip() == "error: --servers, --server-write-mbps and --server-read-mbps need --fs cephfs"


def test_refuses_in_one_line_without_the_ceph_packages(tmp_path):
    from iotune.testbed import support_problem

    if support_problem():
        pytest.skip(f"requires_root: {support_problem()}")
    # a PATH with the system tools but without /usr/bin, where Debian puts ceph-mon & co.
    result = run_cli("testbed", "build", "--fs", "cephfs", "--dir", tmp_path, env={"PATH": "/usr/sbin:/sbin"})
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().startswith("error: the cephfs testbed needs ceph-mon, ceph-osd, ceph-mds")
    assert "apt-get install ceph-mon ceph-osd ceph-mds ceph-fuse ceph-common" in result.stderr
    assert list(tmp_path.iterdir()) == []


def marked_processes(directory: Path) -> list[int]:
    """Processes that carry the step mark of the testbed in ``directory`` (every daemon it started)."""
    mark = f"{STEP_ENV}={directory}".encode()
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and mark in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                found.append(int(entry))
        except OSError:
            continue
    return found


def ceph_leftovers(root: Path, names: list[str]) -> list[str]:
    """Loops, mounts, cgroups and daemons of the testbeds ``names`` under ``root`` that still exist."""
    root = root.resolve()
    found = [line for line in subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout.splitlines()
             if str(root) in line]
    found += [line for line in Path("/proc/mounts").read_text().splitlines() if str(root) in line]
    found += [str(BLKIO_ROOT / f"iotune-{n}") for n in names if (BLKIO_ROOT / f"iotune-{n}").exists()]
    found += [f"process {pid}" for n in names for pid in marked_processes(root / n)]
    return found


@pytest.mark.slow
@pytest.mark.requires_root
def test_build_status_and_teardown_leave_nothing(testbed_root):
    root = testbed_root.resolve()
    built = run_cli("testbed", "build", "--fs", "cephfs", "--servers", "2", "--server-write-mbps", "20",
                    "--mount-options", "client_oc_size=67108864", "--dir", root, timeout=600)
    assert built.returncode == 0, built.stderr
    mountpoint = Path(built.stdout.strip())
    name = mountpoint.parent.name
    try:
        status = json.loads(run_cli("testbed", "status", "--format", "json", "--dir", root).stdout)
        record = next(r for r in status if r["name"] == name)
        assert sorted(p["name"] for p in record["processes"]) == ["client.fuse", "mds.a", "mon.a", "osd.0", "osd.1"]
        osd_loops = [loop for loop in record["loops"] if loop["role"] == "osd"]
        assert len(osd_loops) == 2
        group = Path(record["cgroup"])
        # each OSD's own device has its own write limit, and the OSDs run inside that cgroup
        assert limits(group)["write_bps"] == {loop["number"]: 20_000_000 for loop in osd_loops}
        members = set(map(int, (group / "cgroup.procs").read_text().split()))
        assert {p["pid"] for p in record["processes"] if p["name"].startswith("osd.")} <= members
        assert f" {mountpoint} fuse.ceph-fuse " in Path("/proc/mounts").read_text()
        (mountpoint / "probe").write_bytes(b"x" * 1_000_000)
        assert (mountpoint / "probe").stat().st_size == 1_000_000
        assert len(marked_processes(root / name)) >= 5
        # the client setting is in effect in the running ceph-fuse, as its admin socket reports it
        socket = root / name / "ceph" / "run" / "client.admin.asok"
        asked = subprocess.run(["ceph", "--admin-daemon", str(socket), "config", "get", "client_oc_size"],
                               capture_output=True, text=True, timeout=60)
        assert json.loads(asked.stdout) == {"client_oc_size": "67108864"}, asked.stderr
    finally:
        torn = run_cli("testbed", "teardown", name, "--dir", root, timeout=300)
    assert torn.returncode == 0, torn.stderr
    assert ceph_leftovers(root, [name]) == []
    assert not (root / name).exists()


def _record(directory: Path) -> dict | None:
    try:
        return json.loads((directory / "state.json").read_text())
    except (OSError, ValueError):
        return None


def _named(record: dict | None, prefix: str) -> bool:
    return bool(record) and any(p["name"].startswith(prefix) for p in record.get("processes", []))


# moments of a CephFS build, as seen in its state file
STAGES = {
    "monitor-fs": lambda record: bool(record and record.get("mounts")),
    "osd-device": lambda record: bool(record and any(loop.get("role") == "osd" for loop in record["loops"])),
    "monitor": lambda record: _named(record, "mon."),
    "osd": lambda record: _named(record, "osd."),
    "mds": lambda record: _named(record, "mds."),
    "client": lambda record: _named(record, "client."),
}


@pytest.mark.slow
@pytest.mark.requires_root
@pytest.mark.parametrize("stage", STAGES)
def test_cleanup_removes_a_cephfs_build_killed_at_any_stage(testbed_root, stage):
    root = testbed_root.resolve()
    build = subprocess.Popen([sys.executable, "-m", "iotune", "testbed", "build", "--fs", "cephfs", "--servers", "2",
                              "--server-write-mbps", "20", "--dir", str(root)],
                             env={**os.environ, "IOTUNE_PLAIN": "1"}, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, cwd="/")
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and build.poll() is None:
            beds = [d for d in root.iterdir() if d.is_dir()]
            if beds and STAGES[stage](_record(beds[0])):
                break
            time.sleep(0.002)
    finally:
        build.kill()
        build.wait()
    names = [d.name for d in root.iterdir() if d.is_dir()]
    assert names, "the build was killed before it made its directory"
    assert (_record(root / names[0]) or {}).get("owner") is not None, "the build finished before the kill"
    result = run_cli("testbed", "cleanup", "--dir", root, timeout=300)
    assert result.returncode == 0, result.stderr
    assert ceph_leftovers(root, names) == []
    assert [d for d in root.iterdir() if (d / "state.json").exists()] == []


def test_the_number_of_servers_is_a_storage_parameter():
    from iotune.space import Space
    from iotune.spec.mapping import check_runnable
    from iotune.spec.storage import storage_config

    space = Space.from_text("name: s\nparameters:\n  - {name: devices, type: integer, levels: [1, 3, 8], "
                            "role: system, layer: device}\n")
    check_runnable(space)
    defaults = {"fs": "cephfs", "size_mib": 2048, "write_mbps": 5}
    configs = [storage_config(space, space.configuration({"devices": n}), defaults) for n in (1, 3, 8)]
    assert [(c.fs, c.devices, c.write_bps) for c in configs] == [("cephfs", n, 5_000_000) for n in (1, 3, 8)]
    with pytest.raises(IotuneError, match="devices must be one of 1, 2, 4, got 3"):
        storage_config(space, space.configuration({"devices": 3}), {"fs": "ext4"})


def test_ceph_conf_listens_on_loopback_only_without_auth_and_carries_client_settings(tmp_path):
    from iotune.testbed.ceph import write_conf

    config = StorageConfig(fs="cephfs", devices=3, size_mib=2048,
                           mount_options="client_oc_size=67108864,client_oc_max_dirty=33554432")
    conf = tmp_path / "ceph.conf"
    write_conf(conf, tmp_path / "ceph", "fsid", [3300, 6789], config.client_options)
    text = conf.read_text()
    addresses = [line for line in text.splitlines() if "addr" in line or "mon host" in line]
    assert addresses and all("127.0.0.1" in line for line in addresses)
    assert "auth client required = none" in text and "osd pool default size = 1" in text
    client = text.split("[client]", 1)[1]
    assert "client_oc_size = 67108864" in client and "client_oc_max_dirty = 33554432" in client


@pytest.mark.slow
@pytest.mark.requires_root
def test_a_layout_picks_a_plain_or_a_replicated_data_pool(testbed_root):
    from iotune.fslayout import apply_to_file, default_layout
    from iotune.testbed import Testbed, ceph

    if ceph.support_problem():
        pytest.skip(ceph.support_problem())
    with Testbed(testbed_root) as bed:
        built = bed.build(StorageConfig(fs="cephfs", devices=2, size_mib=2048))
        conf = built.mountpoint.parent / "ceph" / "ceph.conf"
        pools = json.loads(subprocess.run(["ceph", "-c", str(conf), "fs", "ls", "-f", "json"], capture_output=True,
                                          text=True, timeout=120).stdout)[0]["data_pools"]
        assert pools == ["cephfs_data", "cephfs_plain", "cephfs_replicated"]
        size = subprocess.run(["ceph", "-c", str(conf), "osd", "pool", "get", "cephfs_replicated", "size"],
                              capture_output=True, text=True, timeout=120).stdout
        assert size.strip() == "size: 2"
        # what a file gets where nothing is asked: CephFS's root layout (the baseline `--baseline filesystem`)
        assert default_layout(built.mountpoint) == {"stripe_unit": "4194304", "stripe_count": "1",
                                                    "object_size": "4194304", "pool": "cephfs_data"}
        assert not list(built.mountpoint.glob(".iotune-layout-probe*"))
        for pool in ("cephfs_plain", "cephfs_replicated"):
            path = built.mountpoint / f"in-{pool}"
            assert apply_to_file(path, {"pool": pool})["pool"] == pool
            path.write_bytes(b"x" * 1_000_000)
            assert path.stat().st_size == 1_000_000
