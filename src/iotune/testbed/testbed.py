"""Build, use and tear down a throttled storage testbed: loop devices, a file system, a blkio cgroup."""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from iotune.spec.storage import StorageConfig
from iotune.testbed import ceph, cgroup, state, system
from iotune.testbed.errors import TestbedError, TestbedUnsupportedError

ROOT_ENV = "IOTUNE_TESTBED_DIR"
DEFAULT_ROOT = Path("/var/tmp/iotune-testbed")
_counter = itertools.count()
_Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None  # what signal.signal returns


def default_root() -> Path:
    """Where testbeds keep their images and state: $IOTUNE_TESTBED_DIR, else /var/tmp/iotune-testbed."""
    return Path(os.environ.get(ROOT_ENV) or DEFAULT_ROOT)


@dataclass(frozen=True)
class Built:
    """A built testbed: where to write (``mountpoint``), its loop ``devices`` and its blkio ``cgroup`` directory.

    For cephfs, ``devices`` are the OSDs' (one per storage server), ``mountpoint`` the ceph-fuse mount.
    """

    name: str
    mountpoint: Path
    devices: list[str]
    cgroup: Path
    config: StorageConfig
    state_dir: Path


def throttled_devices(record: dict) -> list[str]:
    """The loop devices a testbed's throttles limit: not the CephFS monitor's own small file system's."""
    return [loop["device"] for loop in record["loops"] if loop.get("role") != "mon"]


def _built(record: dict) -> Built:
    return Built(record["name"], Path(record["mountpoint"]), throttled_devices(record),
                 Path(record["cgroup"]), StorageConfig.from_dict(record["config"]), Path(record["dir"]))


def teardown_state(directory: Path) -> list[str]:
    """Remove exactly what the state file in ``directory`` records, in reverse order; returns warnings.

    Idempotent: what is already gone is skipped.  Raises TestbedError (keeping the
    state file for another try) when something recorded could not be removed.
    """
    record = state.load(directory)
    warnings: list[str] = []
    errors: list[str] = []
    # a builder killed mid-step may have left losetup, mkfs or mount running: they must end before we look
    if record["config"].get("fs") == "cephfs":
        warnings.extend(ceph.stop(record))  # client unmounted, daemons killed, before their devices go
    system.stop_steps(Path(record["dir"]))

    def attempt(what: str, action) -> None:
        try:
            action()
        except (OSError, TestbedError) as error:
            errors.append(f"{what}: {error}")

    for wrapper in record["wrappers"]:
        attempt(f"remove {wrapper}", lambda w=wrapper: Path(w).unlink(missing_ok=True))
    if record["cgroup"]:
        def drop_cgroup() -> None:
            moved = cgroup.remove(Path(record["cgroup"]))
            if moved:
                warnings.append(f"processes {', '.join(map(str, moved))} were still in {record['cgroup']}; "
                                "moved to the root cgroup (no longer throttled)")
        attempt(f"remove cgroup {record['cgroup']}", drop_cgroup)
    mountpoint = Path(record["mountpoint"]) if record["mountpoint"] else None
    if mountpoint is not None and system.is_mounted(mountpoint):
        def unmount() -> None:
            if system.unmount(mountpoint):
                warnings.append(f"{mountpoint} was busy: unmounted lazily; its loop devices detach at last close")
        attempt(f"unmount {mountpoint}", unmount)
    before = {loop["device"]: loop.get("scheduler_before") for loop in record["loops"]}
    for image in record["images"]:
        for device in system.loops_of(Path(image)):
            if before.get(device):
                attempt(f"restore the scheduler of {device}", lambda d=device: system.set_scheduler(d, before[d]))
            attempt(f"detach {device}", lambda d=device: system.detach_loop(d))
    for image in record["images"]:
        attempt(f"remove {image}", lambda i=image: Path(i).unlink(missing_ok=True))
    for tree in record["trees"]:
        if not any(system.is_mounted(Path(m)) for m in [*record["mounts"], *filter(None, [record["mountpoint"]])]):
            attempt(f"remove {tree}", lambda t=tree: shutil.rmtree(t) if Path(t).exists() else None)
    if errors:
        state.save(record)
        raise TestbedError(f"teardown of testbed {record['name']} incomplete (state kept in {directory}): "
                           + "; ".join(errors))
    for directory_path in [*filter(None, [mountpoint]), *map(Path, record["mounts"])]:
        if directory_path.is_dir():
            attempt(f"remove {directory_path}", directory_path.rmdir)
    for leftover in (Path(directory) / state.STATE_NAME, Path(directory) / f"{state.STATE_NAME[:-5]}.tmp"):
        leftover.unlink(missing_ok=True)
    attempt(f"remove {directory}", Path(directory).rmdir)
    if errors:
        warnings.extend(errors)
    return warnings


def list_testbeds(root_dir: Path | None = None) -> list[dict]:
    """The state of every testbed recorded under ``root_dir``, each with "alive" (its owner still runs)."""
    found = []
    for directory in state.state_dirs(Path(root_dir or default_root())):
        try:
            record = state.load(directory)
        except TestbedError:
            continue
        found.append({**record, "alive": state.owner_alive(record)})
    return found


def cleanup(root_dir: Path | None = None, include_persistent: bool = False) -> list[tuple[str, list[str]]]:
    """Tear down testbeds whose owner process died (a crash); persistent ones too when asked.

    Returns (name, warnings) for each testbed torn down.  Testbeds of running processes are never touched.
    """
    system.require_support()
    done = []
    for record in list_testbeds(root_dir):
        if record["alive"] or (record["owner"] is None and not include_persistent):
            continue
        done.append((record["name"], teardown_state(Path(record["dir"]))))
    return done


class Testbed:
    """A throttled storage testbed built from a :class:`StorageConfig`; ``build`` it, use it, ``teardown``.

    ``root_dir`` holds one directory per testbed (images, mountpoint, state file).
    Unless ``persistent`` (left up for later commands, as ``iotune testbed build``
    does), teardown also runs at interpreter exit and on SIGINT/SIGTERM/SIGHUP.
    While it is being built, even a persistent testbed names its builder as
    owner, so ``iotune testbed cleanup`` removes what a builder killed midway left.
    """

    __test__ = False  # not a pytest test class despite the name

    def __init__(self, root_dir: Path | None = None, persistent: bool = False):
        self.root_dir = Path(root_dir) if root_dir is not None else None
        self.persistent = persistent
        self._record: dict | None = None
        self._pid = os.getpid()
        self._previous_handlers: dict[int, _Handler] = {}

    @property
    def built(self) -> Built | None:
        """The built testbed, or None before build and after teardown."""
        return _built(self._record) if self._record and self._record.get("cgroup") else None

    @classmethod
    def open(cls, directory: Path) -> Testbed:
        """A Testbed bound to an existing state directory (to tear it down from another process)."""
        bed = cls(Path(directory).parent, persistent=True)
        bed._record = state.load(directory)
        return bed

    def __enter__(self) -> Testbed:
        return self

    def __exit__(self, *exc) -> None:
        self.teardown()

    def build(self, config: StorageConfig) -> Built:
        """Create images, loop devices, the file system, its mount and the throttled cgroup."""
        system.require_support()
        if config.fs == "cephfs" and (problem := ceph.support_problem()):
            raise TestbedUnsupportedError(problem)
        if self._record is not None:
            raise TestbedError(f"testbed {self._record['name']} is already built; tear it down first")
        root = self.root_dir or default_root()
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        size = config.size_mib * system.MIB
        system.check_free_space(root, size * config.devices + (ceph.MON_FS_MIB * system.MIB if config.fs == "cephfs"
                                                               else 0))
        name, directory = self._allocate(root)
        record = self._record = state.new_state(name, directory, config.to_dict(), state.owner_record())
        state.save(record)
        if not self.persistent:
            self._install_handlers()
        try:
            with system.steps_of(directory):
                self._build(record, config, directory)
            if self.persistent:
                record["owner"] = None  # built: from now on it outlives this process
                state.save(record)
        except BaseException:
            self.teardown()
            raise
        return self._require_built()

    def _allocate(self, root: Path) -> tuple[str, Path]:
        while True:
            name = f"{os.getpid()}-{next(_counter)}"
            if (cgroup.BLKIO_ROOT / f"{cgroup.CGROUP_PREFIX}{name}").exists():
                continue
            try:
                (root / name).mkdir(mode=0o700)
            except FileExistsError:
                continue
            return name, (root / name).resolve()

    def _build(self, record: dict, config: StorageConfig, directory: Path) -> None:
        if config.fs == "cephfs":
            ceph.build(record, config, directory, cgroup.BLKIO_ROOT / f"{cgroup.CGROUP_PREFIX}{record['name']}")
            return
        devices = []
        for index in range(config.devices):
            loop = state.attach_device(record, directory / f"dev{index}.img", config.size_mib, config.scheduler)
            devices.append(loop["device"])
        system.mkfs(config.fs, devices, config.raid0)
        mountpoint = directory / "mnt"
        record["mountpoint"] = str(mountpoint)
        state.save(record)
        mountpoint.mkdir()
        system.mount(config.fs, devices, mountpoint, config.mount_options)
        os.chmod(mountpoint, 0o1777)
        group = cgroup.BLKIO_ROOT / f"{cgroup.CGROUP_PREFIX}{record['name']}"
        record["cgroup"] = str(group)
        state.save(record)
        cgroup.create(group)
        limits = {"write_bps": config.write_bps, "read_bps": config.read_bps,
                  "write_iops": config.iops, "read_iops": config.iops}
        for loop in record["loops"]:
            for kind, value in limits.items():
                if value is not None:
                    cgroup.set_limit(group, kind, loop["number"], value)

    def _require_built(self) -> Built:
        built = self.built
        if built is None:
            raise TestbedError("the testbed is not built")
        return built

    def run_in_cgroup(self, argv: list[str], **popen_kwargs) -> subprocess.Popen:
        """Start ``argv`` inside the testbed's cgroup (its children stay there); a Popen."""
        return cgroup.run_in_cgroup(self._require_built().cgroup, argv, **popen_kwargs)

    def mpiexec_wrapper(self, mpiexec: str | None = None) -> str:
        """Path of a script that joins the cgroup and execs mpiexec: give it to ``BuiltinRunner(mpiexec=...)``.

        The script execs the launcher a single-host world uses (MPICH's gforker, which listens on no port).
        """
        from iotune.bench.world import find_mpiexec, local_launcher

        built, record = self._require_built(), self._record
        assert record is not None  # built implies recorded
        script = built.state_dir / "mpiexec-in-cgroup"
        if str(script) not in record["wrappers"]:
            record["wrappers"].append(str(script))
            state.save(record)
        return str(cgroup.write_wrapper(script, built.cgroup, local_launcher(find_mpiexec(mpiexec))))

    def runner(self, mpiexec: str | None = None, **kwargs):
        """A BuiltinRunner whose MPI ranks run inside the testbed's cgroup."""
        from iotune.bench.runner import BuiltinRunner

        return BuiltinRunner(mpiexec=self.mpiexec_wrapper(mpiexec), **kwargs)

    def teardown(self) -> list[str]:
        """Remove everything this testbed created, in reverse order (idempotent); returns warnings."""
        record, self._record = self._record, None
        self._remove_handlers()
        if record is None or not (Path(record["dir"]) / state.STATE_NAME).exists():
            return []
        try:
            return teardown_state(Path(record["dir"]))
        except BaseException:
            self._record = record
            raise

    def _install_handlers(self) -> None:
        atexit.register(self._at_exit)
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(signum) != signal.SIG_IGN:  # e.g. SIGHUP under nohup: the testbed stays
                self._previous_handlers[signum] = signal.signal(signum, self._on_signal)

    def _remove_handlers(self) -> None:
        atexit.unregister(self._at_exit)
        for signum, previous in self._previous_handlers.items():
            if signal.getsignal(signum) == self._on_signal:
                signal.signal(signum, previous)
        self._previous_handlers = {}

    def _at_exit(self) -> None:
        # A forked child inherits atexit hooks; only the builder may tear down.
        if os.getpid() == self._pid:
            self._quiet_teardown()

    def _quiet_teardown(self) -> None:
        try:
            for warning in self.teardown():
                print(f"iotune testbed: {warning}", file=sys.stderr)
        except TestbedError as error:
            print(f"iotune testbed: {error}", file=sys.stderr)

    def _on_signal(self, signum, frame) -> None:
        previous = self._previous_handlers.get(signum, signal.SIG_DFL)
        if callable(previous):
            # A Python handler (KeyboardInterrupt, the CLI's SIGTERM/SIGHUP) unwinds the stack: whoever uses
            # the testbed stops first (MPI ranks still hold files in it), then teardown runs from their
            # ``with``/``finally`` or at exit.  Tearing down here, under them, would leave a busy mount.
            previous(signum, frame)
            return
        if os.getpid() == self._pid:
            self._quiet_teardown()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
