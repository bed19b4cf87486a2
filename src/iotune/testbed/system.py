"""Probes and the block-device steps of a testbed: loop devices, mkfs, mount, scheduler.

Every function acts only on the paths and devices it is given; deciding what is
ours is the caller's job (see :mod:`iotune.testbed.state`).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from iotune.owner import process_start
from iotune.testbed.cgroup import BLKIO_ROOT
from iotune.testbed.errors import TestbedError, TestbedUnsupportedError
from iotune.units import MIB

SPACE_MARGIN = 256 * MIB
MKFS_PACKAGES = {"ext4": "e2fsprogs", "xfs": "xfsprogs", "btrfs": "btrfs-progs"}
STEP_ENV = "IOTUNE_TESTBED_STEP"
_step_of: contextvars.ContextVar[str | None] = contextvars.ContextVar("testbed_step", default=None)


def support_problem() -> str | None:
    """Why this process cannot build a testbed (root, loop devices, blkio cgroup v1), or None."""
    if os.geteuid() != 0:
        return "the testbed needs root"
    if not Path("/dev/loop-control").exists() or shutil.which("losetup") is None:
        return "no loop device support (/dev/loop-control or losetup missing)"
    if not (BLKIO_ROOT / "blkio.throttle.write_bps_device").exists():
        return f"no blkio cgroup (cgroup v1 blkio controller not mounted at {BLKIO_ROOT})"
    return None


def require_support() -> None:
    """Raise TestbedUnsupportedError with the one-line reason when a testbed cannot be built here."""
    problem = support_problem()
    if problem:
        raise TestbedUnsupportedError(problem)


@contextlib.contextmanager
def steps_of(directory: Path):
    """Within this block, every command :func:`run` starts carries ``IOTUNE_TESTBED_STEP=<directory>``.

    A builder killed mid-step leaves its command (losetup, mkfs, mount) running;
    the mark lets :func:`stop_steps` find it before the testbed is torn down.
    """
    token = _step_of.set(str(directory))
    try:
        yield
    finally:
        _step_of.reset(token)


def stop_steps(directory: Path, timeout: float = 30.0) -> list[int]:
    """SIGKILL the commands still running for the testbed in ``directory`` and wait until they are gone."""
    mark = f"{STEP_ENV}={directory}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if mark not in handle.read().split(b"\0"):
                    continue
            os.kill(int(entry), signal.SIGKILL)
            found.append(int(entry))
        except OSError:
            continue
    deadline = time.monotonic() + timeout
    while any(process_start(pid) is not None for pid in found):  # running, not a zombie
        if time.monotonic() > deadline:
            raise TestbedError(f"commands {found} of testbed {directory} do not end (stuck in the kernel?)")
        time.sleep(0.02)
    return found


def run(argv: list[str], timeout: float = 120.0) -> str:
    """Run a system command; its stdout, or TestbedError with the last line of its stderr."""
    step = _step_of.get()
    env = None if step is None else {**os.environ, STEP_ENV: step}
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                              env=env)
    except FileNotFoundError:
        raise TestbedError(f"{argv[0]} not found") from None
    except subprocess.TimeoutExpired:
        raise TestbedError(f"{' '.join(argv)} did not finish within {timeout:g} s") from None
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise TestbedError(f"{' '.join(argv)} failed: {lines[-1] if lines else f'exit status {done.returncode}'}")
    return done.stdout


def check_free_space(directory: Path, needed_bytes: int) -> None:
    """Raise TestbedError unless ``directory`` has ``needed_bytes`` plus a 256 MiB margin free."""
    free = shutil.disk_usage(directory).free
    if free < needed_bytes + SPACE_MARGIN:
        raise TestbedError(f"not enough free space in {directory}: {free // MIB} MiB free, "
                           f"{(needed_bytes + SPACE_MARGIN) // MIB} MiB needed (images plus a 256 MiB margin)")


def make_image(path: Path, size_bytes: int) -> None:
    """Create a sparse image file of ``size_bytes`` bytes (fails if it exists)."""
    with open(path, "xb") as handle:
        handle.truncate(size_bytes)


def attach_loop(image: Path) -> str:
    """Attach ``image`` to a free loop device with direct I/O to the backing file; its /dev path."""
    # direct-io=on keeps the host page cache out of the picture: without it every
    # testbed write lands twice in RAM and the backing file's writeback hides the throttle.
    return run(["losetup", "--find", "--show", "--direct-io=on", str(image)]).strip()


def loop_backing_file(device: str) -> str | None:
    """The backing file of a loop device (without the " (deleted)" suffix), or None when detached."""
    try:
        text = Path(f"/sys/block/{Path(device).name}/loop/backing_file").read_text().strip()
    except OSError:
        return None
    return text.removesuffix(" (deleted)")


def loops_of(image: Path) -> list[str]:
    """Every loop device whose backing file is ``image``."""
    target = str(Path(image).resolve())
    return sorted(f"/dev/{entry.parent.parent.name}" for entry in Path("/sys/block").glob("loop*/loop/backing_file")
                  if loop_backing_file(entry.parent.parent.name) == target)


def detach_loop(device: str) -> None:
    """Detach a loop device (when still busy the kernel detaches it at last close)."""
    run(["losetup", "--detach", device])


def device_number(device: str) -> str:
    """"MAJOR:MINOR" of a block device, as the blkio throttle files want it."""
    rdev = os.stat(device).st_rdev
    return f"{os.major(rdev)}:{os.minor(rdev)}"


def _scheduler_file(device: str) -> Path:
    return Path(f"/sys/block/{Path(device).name}/queue/scheduler")


def schedulers(device: str) -> tuple[list[str], str]:
    """The schedulers a device offers and the one in use."""
    words = _scheduler_file(device).read_text().split()
    current = next((w.strip("[]") for w in words if w.startswith("[")), "")
    return [w.strip("[]") for w in words], current


def set_scheduler(device: str, scheduler: str) -> None:
    """Select ``scheduler`` for ``device``; TestbedError naming the available ones when it is not offered."""
    available, _ = schedulers(device)
    if scheduler not in available:
        raise TestbedError(f"scheduler {scheduler!r} is not available for {device}; "
                           f"available: {', '.join(available)}")
    _scheduler_file(device).write_text(scheduler)


def mkfs(fs: str, devices: list[str], raid0: bool) -> None:
    """Make file system ``fs`` over ``devices`` (btrfs stripes data and metadata when ``raid0``)."""
    program = f"mkfs.{fs}"
    if shutil.which(program) is None:
        raise TestbedError(f"{program} not found; apt-get install {MKFS_PACKAGES[fs]}")
    if fs == "ext4":
        # Lazy inode-table init would keep a kernel thread writing after mount and skew measurements.
        argv = [program, "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", *devices]
    elif fs == "xfs":
        argv = [program, "-q", "-f", *devices]
    else:
        profile = ["-d", "raid0", "-m", "raid0"] if raid0 else []
        argv = [program, "-q", "-f", *profile, *devices]
    run(argv, timeout=300)


def mount(fs: str, devices: list[str], mountpoint: Path, options: str) -> None:
    """Mount the file system on ``devices`` at ``mountpoint``."""
    parts = [o for o in options.split(",") if o]
    if fs == "btrfs" and len(devices) > 1:
        parts += [f"device={d}" for d in devices]
    run(["mount", "-t", fs, *(["-o", ",".join(parts)] if parts else []), devices[0], str(mountpoint)])


def _unescape(field: str) -> str:
    return field.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


def is_mounted(mountpoint: Path) -> bool:
    """True when something is mounted exactly at ``mountpoint``."""
    target = str(Path(mountpoint).resolve())
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return False
    return any(_unescape(line.split()[4]) == target for line in lines)


def unmount(mountpoint: Path, attempts: int = 5) -> bool:
    """Unmount ``mountpoint``; a lazy unmount after ``attempts`` busy tries.  True when it was lazy."""
    for attempt in range(attempts):
        try:
            run(["umount", str(mountpoint)])
            return False
        except TestbedError:
            if not is_mounted(mountpoint):
                return False
            time.sleep(0.2 * (attempt + 1))
    run(["umount", "--lazy", str(mountpoint)])
    return True
