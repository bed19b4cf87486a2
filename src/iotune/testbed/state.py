"""The JSON state file of one testbed: everything it created, so a crash can be cleaned up exactly.

A resource is recorded *before* it is created whenever its name is known in
advance (image files, the mount directory, the cgroup); loop devices get their
name from the kernel, so teardown also finds them by backing file.  A cephfs
testbed also records its other mounts (the monitor's file system), the
directory trees of its daemons' data and its daemons (pid and start time).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from iotune.owner import process_start
from iotune.testbed.errors import TestbedError

STATE_NAME = "state.json"
VERSION = 1


def owner_record() -> dict:
    """This process as a testbed owner."""
    return {"pid": os.getpid(), "start": process_start(os.getpid())}


def owner_alive(state: dict) -> bool:
    """True while the process that built a non-persistent testbed still runs (persistent ones: False)."""
    owner = state.get("owner")
    if not owner:
        return False
    return process_start(owner["pid"]) == owner["start"]


def new_state(name: str, directory: Path, config: dict, owner: dict | None) -> dict:
    return {"version": VERSION, "name": name, "dir": str(directory), "owner": owner, "config": config,
            "images": [], "loops": [], "mountpoint": None, "cgroup": None, "wrappers": [],
            "mounts": [], "trees": [], "processes": []}


def save(state: dict) -> None:
    """Write the state file atomically (a crash leaves the old or the new one, never half of one)."""
    path = Path(state["dir"]) / STATE_NAME
    temporary = path.with_suffix(".tmp")
    with open(temporary, "w") as handle:
        json.dump(state, handle, indent=2)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def load(directory: Path) -> dict:
    """Read and check a state file: every recorded path must lie inside the testbed's directory."""
    directory = Path(directory).resolve()
    try:
        state = json.loads((directory / STATE_NAME).read_text())
    except (OSError, ValueError) as error:
        raise TestbedError(f"cannot read testbed state {directory / STATE_NAME}: {error}") from None
    if state.get("version") != VERSION or Path(state.get("dir", "")).resolve() != directory:
        raise TestbedError(f"{directory / STATE_NAME} is not a testbed state file of this iotune version")
    for key in ("mounts", "trees", "processes"):  # cephfs testbeds; absent from older state files
        state.setdefault(key, [])
    paths = [*state["images"], *state["wrappers"], *filter(None, [state["mountpoint"]]), *state["mounts"],
             *state["trees"]]
    for path in paths:
        if Path(path).resolve().parent != directory:
            raise TestbedError(f"{directory / STATE_NAME} records {path} outside {directory}; refusing to touch it")
    return state


def state_dirs(root: Path) -> list[Path]:
    """Directories under ``root`` that hold a testbed state file."""
    if not Path(root).is_dir():
        return []
    return sorted(p.parent for p in Path(root).glob(f"*/{STATE_NAME}"))


def attach_device(record: dict, image: Path, size_mib: int, scheduler: str, **extra) -> dict:
    """A loop device over a new sparse ``image`` of ``size_mib`` MiB with ``scheduler``, each step recorded in
    ``record`` (and saved) before it is taken, so that cleanup after a kill at any moment removes exactly it;
    returns its entry of ``record["loops"]`` (``extra`` added to it)."""
    from iotune.testbed import system

    record["images"].append(str(image))
    save(record)
    system.make_image(image, size_mib * system.MIB)
    device = system.attach_loop(image)
    _, current = system.schedulers(device)
    loop = {"device": device, "image": str(image), "number": system.device_number(device),
            "scheduler_before": current, **extra}
    record["loops"].append(loop)
    save(record)
    system.set_scheduler(device, scheduler)
    return loop
