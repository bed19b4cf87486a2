"""Done when (issue 20): MPI-IO through iotune's benchmark on a CephFS testbed, two layouts, each file checked
from the file system (getfattr) against the layout iotune stored as in effect, and its inode number against the
one stored (issue 33: it says where the objects landed); nothing left afterwards."""

from __future__ import annotations

import subprocess
import textwrap
import threading
import time
from pathlib import Path

import pytest

from iotune.fslayout.cephfs import parse
from iotune.store import Store
from tests.testbed.conftest import run_cli
from tests.testbed.test_cephfs import ceph_leftovers

pytestmark = [pytest.mark.slow, pytest.mark.requires_root, pytest.mark.requires_mpi]

SPEC = textwrap.dedent("""\
    name: cephfs-layouts
    parameters:
      - {name: stripe_count, type: integer, levels: [1, 3], role: system, layer: filesystem}
      - {name: stripe_unit, type: size, levels: [4MiB, 1MiB], role: system, layer: filesystem,
         when: "stripe_count == 3"}
    benchmark: {api: MPIIO, processes: 2, collective: true, block_size: 8MiB, transfer_size: 1MiB,
                operation: readwrite, fsync: true}
    campaign: {repeats: 1}
""")


class Watcher(threading.Thread):
    """Reads ``ceph.file.layout`` with getfattr from every benchmark file under ``root``, again and again while the
    file exists: the last reading is the layout its data went into (the first may catch the layout half set)."""

    def __init__(self, root: Path):
        super().__init__(daemon=True)
        self.root = root
        self.seen: dict[str, dict] = {}
        self.inodes: dict[str, int] = {}
        self.testbeds: set[str] = set()
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.testbeds.update(d.name for d in self.root.iterdir() if d.is_dir())
            for path in self.root.glob("*/mnt/iotune-trial-*/testFile"):
                read = subprocess.run(["getfattr", "--only-values", "-n", "ceph.file.layout", str(path)],
                                      capture_output=True, text=True)
                if read.returncode == 0 and path.exists():
                    self.seen[str(path)] = parse(read.stdout)
                    try:
                        self.inodes[str(path)] = path.stat().st_ino
                    except FileNotFoundError:
                        pass
            time.sleep(0.002)


def test_each_benchmark_file_gets_the_layout_stored_as_in_effect(testbed_root, tmp_path):
    root = testbed_root.resolve()
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    db = tmp_path / "db.sqlite"
    watcher = Watcher(root)
    watcher.start()
    try:
        result = run_cli("testbed", "bench", spec, "--db", db, "--fs", "cephfs", "--servers", "3",
                         "--server-write-mbps", "20", "--dir", root, timeout=900)
    finally:
        watcher.done.set()
        watcher.join()
    assert result.returncode == 0, result.stderr
    with Store(db) as store:
        trials = store.trials(study="cephfs-layouts")
    assert len(trials) == 3 and all(t.state == "COMPLETE" for t in trials), [t.error for t in trials]
    stored = []
    for trial in trials:
        requested, in_effect = trial.extra["layout_requested"], trial.extra["layout_in_effect"]
        assert requested == {k: str(v) for k, v in trial.config.items() if v is not None}
        assert {k: in_effect[k] for k in requested} == requested
        assert in_effect["pool"] == "cephfs_data" and int(in_effect["object_size"]) % int(in_effect["stripe_unit"]) == 0
        stored.append(in_effect)
    # every file the benchmark wrote, as the file system itself reports it: one per trial, each as stored
    assert sorted(map(sorted_items, watcher.seen.values())) == sorted(map(sorted_items, stored))
    assert len({(s["stripe_count"], s["stripe_unit"]) for s in stored}) == 3
    # the inode number stored with each trial is its file's, as the file system reported it (it names the objects)
    assert sorted(i for t in trials for i in t.extra["file_inodes"]) == sorted(watcher.inodes.values())
    assert watcher.testbeds and ceph_leftovers(root, sorted(watcher.testbeds)) == []


def sorted_items(layout: dict) -> tuple:
    return tuple(sorted(layout.items()))
