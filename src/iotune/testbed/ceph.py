"""A CephFS testbed: one monitor, N BlueStore OSDs each on its own throttled loop device, one MDS, ceph-fuse.

No systemd and no manager (``ceph-mgr`` is not needed for data I/O): every
daemon is started here, in the foreground, carrying the testbed's step mark
(:func:`iotune.testbed.system.steps_of`), so teardown finds and kills each of
them by that mark even after the builder was SIGKILLed before it could record a
pid.  Everything listens on 127.0.0.1 only and authentication is off
(``auth_*_required = none``): a testbed for one host, never for a network.

Data pools: ``cephfs_data`` (the file system's default), ``cephfs_plain`` (a
second one alike) and, with 2 OSDs or more, ``cephfs_replicated`` (2 copies on
distinct OSDs); a file's layout picks one with ``pool``.

The monitor keeps its data on a small ext4 file system of its own (it stops
when its file system runs short of space); the OSDs run inside the testbed's
blkio cgroup, whose throttles limit each OSD's loop device separately, so each
OSD behaves as a storage server of its own bandwidth.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from pathlib import Path

from iotune.owner import process_start
from iotune.testbed import cgroup, state, system
from iotune.testbed.errors import TestbedError

PROGRAMS = ("ceph-mon", "ceph-osd", "ceph-mds", "ceph-fuse", "ceph", "monmaptool", "ceph-authtool")
PACKAGES = "ceph-mon ceph-osd ceph-mds ceph-fuse ceph-common"
MON_FS_MIB = 512
DATA_POOL = "cephfs_data"
METADATA_POOL = "cephfs_metadata"
PLAIN_POOL = "cephfs_plain"
REPLICATED_POOL = "cephfs_replicated"
REPLICAS = 2
"""Copies the replicated data pool keeps (on distinct OSDs: the crush failure domain is the OSD)."""
START_TIMEOUT = 300.0


def support_problem() -> str | None:
    """Why a CephFS testbed cannot be built here (on top of the testbed's own needs), or None."""
    missing = [p for p in PROGRAMS if shutil.which(p) is None]
    if missing:
        return f"the cephfs testbed needs {', '.join(missing)}: apt-get install {PACKAGES}"
    if not Path("/dev/fuse").exists():
        return "the cephfs testbed needs FUSE (/dev/fuse is missing)"
    if shutil.which("mkfs.ext4") is None:
        return "the cephfs testbed needs mkfs.ext4 for the monitor's file system: apt-get install e2fsprogs"
    return None


def free_ports(count: int) -> list[int]:
    """``count`` TCP ports free on 127.0.0.1 now (the kernel's choice)."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def write_conf(path: Path, base: Path, fsid: str, ports: list[int], client: dict[str, str]) -> None:
    """ceph.conf: loopback only, no auth, pools of size 1, every file under ``base``, small memory."""
    mon = f"[v2:127.0.0.1:{ports[0]},v1:127.0.0.1:{ports[1]}]"
    lines = [
        "[global]", f"fsid = {fsid}", f"mon host = {mon}", "public addr = 127.0.0.1", "cluster addr = 127.0.0.1",
        "auth cluster required = none", "auth service required = none", "auth client required = none",
        "osd pool default size = 1", "osd pool default min size = 1", "mon allow pool size one = true",
        "osd crush chooseleaf type = 0", "mon warn on pool no redundancy = false",
        f"run dir = {base}/run", f"admin socket = {base}/run/$name.asok", f"log file = {base}/log/$name.log",
        f"pid file = {base}/run/$name.pid", f"keyring = {base}/keyring", f"mon data = {base.parent}/mon/$id",
        f"osd data = {base}/osd/$id", f"mds data = {base}/mds/$id", "osd objectstore = bluestore",
        "osd memory target = 939524096", "bluestore cache autotune = false", "bluestore cache size = 134217728",
        "mon data avail warn = 5", "mon data avail crit = 2", "err to stderr = true", "log to stderr = false",
        "[client]", *(f"{name} = {value}" for name, value in client.items()),
    ]
    path.write_text("\n".join(lines) + "\n")


def start_daemon(record: dict, name: str, argv: list[str], log: Path) -> subprocess.Popen:
    """Start a daemon in the foreground (it keeps the step mark) and record its pid and start time."""
    env = {**os.environ, system.STEP_ENV: record["dir"]}
    with open(log, "ab") as out:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                                   start_new_session=True)
    record["processes"].append({"name": name, "pid": process.pid, "start": process_start(process.pid)})
    state.save(record)
    return process


class Cluster:
    """The running daemons of one CephFS testbed while it is being built."""

    def __init__(self, record: dict, directory: Path):
        self.record = record
        self.base = directory / "ceph"
        self.conf = self.base / "ceph.conf"
        self.processes: list[subprocess.Popen] = []

    def ceph(self, *args: str, timeout: float = 120.0) -> str:
        return system.run(["ceph", "-c", str(self.conf), "--connect-timeout", "30", *args], timeout=timeout)

    def start(self, name: str, argv: list[str], cgroup_dir: Path | None = None) -> None:
        prefix = cgroup.join_prefix(cgroup_dir) if cgroup_dir is not None else []
        process = start_daemon(self.record, name, prefix + argv, self.base / "log" / f"{name}.out")
        self.processes.append(process)

    def check_alive(self) -> None:
        for process, info in zip(self.processes, self.record["processes"], strict=True):
            if process.poll() is not None:
                tail = (self.base / "log" / f"{info['name']}.out").read_text(errors="replace").strip().splitlines()
                raise TestbedError(f"{info['name']} exited with status {process.returncode}"
                                   + (f": {tail[-1]}" if tail else ""))

    def wait(self, what: str, ready, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while True:
            self.check_alive()
            try:
                if ready():
                    return
            except TestbedError:
                pass
            if time.monotonic() > deadline:
                raise TestbedError(f"cephfs testbed: {what} not ready within {timeout:g} s")
            time.sleep(1.0)


def build(record: dict, config, directory: Path, group: Path) -> None:
    """Build the CephFS testbed of ``config`` in ``directory``; every resource recorded before it exists."""
    problem = support_problem()
    if problem:
        raise TestbedError(problem)
    cluster = Cluster(record, directory)
    base = cluster.base
    record["trees"].append(str(base))
    state.save(record)
    for sub in ("run", "log", "osd", "mds/a"):
        (base / sub).mkdir(parents=True)
    # the monitor's own small file system
    image = directory / "mon.img"
    record["images"].append(str(image))
    state.save(record)
    system.make_image(image, MON_FS_MIB * system.MIB)
    device = system.attach_loop(image)
    record["loops"].append({"device": device, "image": str(image), "number": system.device_number(device),
                            "scheduler_before": None, "role": "mon"})
    state.save(record)
    system.mkfs("ext4", [device], False)
    mon_dir = directory / "mon"
    record["mounts"].append(str(mon_dir))
    state.save(record)
    mon_dir.mkdir()
    system.mount("ext4", [device], mon_dir, "")
    # the OSDs' devices, each throttled in the testbed's cgroup
    record["cgroup"] = str(group)
    state.save(record)
    cgroup.create(group)
    osd_devices = []
    for index in range(config.devices):
        loop = state.attach_device(record, directory / f"dev{index}.img", config.size_mib, config.scheduler,
                                   role="osd")
        device = loop["device"]
        limits = {"write_bps": config.write_bps, "read_bps": config.read_bps,
                  "write_iops": config.iops, "read_iops": config.iops}
        for kind, value in limits.items():
            if value is not None:
                cgroup.set_limit(group, kind, loop["number"], value)
        osd_devices.append(device)
    # monitor
    fsid = str(uuid.uuid4())
    write_conf(cluster.conf, base, fsid, free_ports(2), config.client_options)
    conf = str(cluster.conf)
    keyring = base / "mon.keyring"
    system.run(["ceph-authtool", "--create-keyring", str(keyring), "--gen-key", "-n", "mon.", "--cap", "mon",
                "allow *"])
    monmap = base / "monmap"
    mon_host = cluster.conf.read_text().split("mon host = ", 1)[1].split("\n", 1)[0]
    system.run(["monmaptool", "--create", "--addv", "a", mon_host, "--fsid", fsid, str(monmap)])
    system.run(["ceph-mon", "-c", conf, "--mkfs", "-i", "a", "--monmap", str(monmap), "--keyring", str(keyring)])
    cluster.start("mon.a", ["ceph-mon", "-c", conf, "-f", "-i", "a"])
    cluster.wait("the monitor", lambda: bool(cluster.ceph("mon", "stat", timeout=60)))
    # OSDs, inside the throttled cgroup
    for device in osd_devices:
        osd_uuid = str(uuid.uuid4())
        osd_id = cluster.ceph("osd", "new", osd_uuid).strip()
        if not osd_id.isdigit():
            raise TestbedError(f"ceph osd new answered {osd_id!r}, not an OSD id")
        data = base / "osd" / osd_id
        data.mkdir()
        (data / "block").symlink_to(device)
        system.run(["ceph-osd", "-c", conf, "-i", osd_id, "--mkfs", "--osd-uuid", osd_uuid], timeout=300)
        cluster.start(f"osd.{osd_id}", ["ceph-osd", "-c", conf, "-f", "-i", osd_id], group)
    cluster.wait(f"{config.devices} OSDs",
                 lambda: json.loads(cluster.ceph("osd", "stat", "-f", "json"))["num_up_osds"] == config.devices)
    # the file system and its MDS
    cluster.ceph("osd", "pool", "create", DATA_POOL, "64", "64")
    cluster.ceph("osd", "pool", "create", METADATA_POOL, "16", "16")
    cluster.ceph("fs", "new", "cephfs", METADATA_POOL, DATA_POOL)
    # further data pools a layout's ``pool`` can name: a second plain one, and one of REPLICAS copies
    cluster.ceph("osd", "pool", "create", PLAIN_POOL, "32", "32")
    cluster.ceph("fs", "add_data_pool", "cephfs", PLAIN_POOL)
    if config.devices >= REPLICAS:
        cluster.ceph("osd", "pool", "create", REPLICATED_POOL, "32", "32")
        cluster.ceph("osd", "pool", "set", REPLICATED_POOL, "size", str(REPLICAS))
        cluster.ceph("osd", "pool", "set", REPLICATED_POOL, "min_size", "1")
        cluster.ceph("fs", "add_data_pool", "cephfs", REPLICATED_POOL)
    cluster.start("mds.a", ["ceph-mds", "-c", conf, "-f", "-i", "a"])
    cluster.wait("the MDS", lambda: "up:active" in cluster.ceph("mds", "stat"))
    # the client mount
    mountpoint = directory / "mnt"
    record["mountpoint"] = str(mountpoint)
    state.save(record)
    mountpoint.mkdir()
    cluster.start("client.fuse", ["ceph-fuse", "-c", conf, "-f", str(mountpoint)])
    cluster.wait("the ceph-fuse mount", lambda: system.is_mounted(mountpoint))
    os.chmod(mountpoint, 0o1777)


def stop(record: dict) -> list[str]:
    """Unmount the client, kill every daemon of the testbed, unmount the monitor's file system; warnings."""
    warnings = []
    mountpoint = record.get("mountpoint")
    if mountpoint and system.is_mounted(Path(mountpoint)):
        if system.unmount(Path(mountpoint)):
            warnings.append(f"{mountpoint} was busy: unmounted lazily")
    system.stop_steps(Path(record["dir"]))
    for info in record.get("processes", []):
        # a daemon whose mark was hidden from us: by pid, only if it is still the process we started
        if process_start(info["pid"]) == info["start"]:
            try:
                os.kill(info["pid"], signal.SIGKILL)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + 30
    while any(process_start(i["pid"]) == i["start"] for i in record.get("processes", [])):
        if time.monotonic() > deadline:
            raise TestbedError(f"daemons of testbed {record['name']} do not end")
        time.sleep(0.05)
    for mount in reversed(record.get("mounts", [])):
        if system.is_mounted(Path(mount)):
            system.unmount(Path(mount))
    return warnings
