"""The layout drivers are found from their modules: adding a file system is its module and its test.

Before: ``drivers.DRIVERS`` listed each driver by hand (one more file to edit per file system) and
``iotune run --output-dir``'s help named the file systems again.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import typer

import iotune.fslayout
from iotune.fslayout import drivers

SRC = Path(__file__).resolve().parents[2] / "src" / "iotune"


def test_every_driver_module_is_found():
    modules = sorted(p.stem for p in (SRC / "fslayout").glob("*.py") if p.stem not in ("__init__", "base", "drivers"))
    assert [d.name for d in drivers.DRIVERS] == modules == ["cephfs", "lustre"]
    assert drivers.KNOWN == "cephfs, lustre"


def test_the_run_command_names_the_file_systems_from_the_drivers():
    from iotune.cli.app import app

    run = typer.main.get_command(app).commands["run"]
    (output_dir,) = [p for p in run.params if "--output-dir" in getattr(p, "opts", ())]
    assert f"({drivers.KNOWN})" in output_dir.help


def test_a_driver_module_dropped_in_the_package_serves_its_file_system(tmp_path, monkeypatch):
    (tmp_path / "beegfs.py").write_text(textwrap.dedent('''
        from iotune.fslayout.base import LayoutDriver

        class BeeGFSDriver(LayoutDriver):
            name = "beegfs"
            fs_types = ("beegfs",)
            fields = ("stripe_count", "stripe_unit")

            def set_file(self, path, layout):
                self.check(layout)
                path.write_bytes(b"")
                self.layout = dict(layout)

            def set_directory(self, path, layout):
                self.set_file(path / ".layout", layout)

            def read(self, path):
                return {k: str(v) for k, v in self.layout.items()}

            def mpi_hints(self, layout):
                return {}

        DRIVER = BeeGFSDriver()
    '''))
    monkeypatch.setattr(iotune.fslayout, "__path__", [*iotune.fslayout.__path__, str(tmp_path)])
    try:
        found = drivers._discover()
        assert [d.name for d in found] == ["beegfs", "cephfs", "lustre"]
        monkeypatch.setattr(drivers, "DRIVERS", found)
        monkeypatch.setattr(drivers, "file_system_of", lambda path: ("beegfs", tmp_path))
        assert drivers.apply_to_file(tmp_path / "out.dat", {"stripe_count": 4}) == {"stripe_count": "4"}
        assert (tmp_path / "out.dat").exists()
    finally:
        sys.modules.pop("iotune.fslayout.beegfs", None)
