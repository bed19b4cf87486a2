"""Issue 12, item 4: bench, screen and tune say where they write, on which file system, and when it misleads."""

from pathlib import Path

from iotune.cli.common import prepare_scratch, scratch_warnings
from iotune.spec import load_spec

LUSTRE = """\
name: lustre
parameters:
  - {name: striping_factor, type: integer, levels: [1, 4], role: system, layer: filesystem}
  - {name: cb_nodes, type: integer, levels: [1, 2], role: system, layer: mpiio}
"""


def test_memory_and_overlay_file_systems_are_named():
    for kind in ("tmpfs", "overlay"):
        (warning,) = scratch_warnings(Path("/s"), kind)
        assert kind in warning and "--scratch" in warning
    assert scratch_warnings(Path("/s"), "ext4") == []


def test_lustre_hints_on_another_file_system_are_noise(tmp_path):
    (tmp_path / "lustre.yaml").write_text(LUSTRE)
    spec = load_spec(tmp_path / "lustre.yaml")
    (warning,) = scratch_warnings(Path("/s"), "ext4", spec)
    assert "striping_factor" in warning and "Lustre" in warning
    assert scratch_warnings(Path("/s"), "lustre", spec) == []


def test_prepare_scratch_announces_path_and_file_system(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    prepare_scratch(tmp_path / "scratch")
    err = capsys.readouterr().err
    assert f"writing into {(tmp_path / 'scratch').resolve()}" in err and "file system" in err
