"""Layout drivers: detection from the path, checks, Lustre through a fake ``lfs``, refusals in one line."""

from __future__ import annotations

import os
import shlex
import sys
import textwrap
from pathlib import Path

import pytest

from iotune.fslayout import (
    LayoutError,
    apply_to_directory,
    apply_to_file,
    check_layout,
    default_layout,
    driver_for,
    file_system_of,
)
from iotune.fslayout.cephfs import CephFSDriver, parse
from iotune.fslayout.lustre import LustreDriver


def test_the_file_system_of_a_path_is_its_longest_mount():
    fs_type, mountpoint = file_system_of(Path("/proc/self"))
    assert (fs_type, mountpoint) == ("proc", Path("/proc"))


def test_a_file_system_without_layouts_is_refused_in_one_line(tmp_path):
    fs_type, _ = file_system_of(tmp_path)
    with pytest.raises(LayoutError) as caught:
        apply_to_file(tmp_path / "f", {"stripe_count": "2"})
    message = str(caught.value)
    assert f"is on {fs_type}" in message and "has no file layouts" in message and "\n" not in message
    assert not (tmp_path / "f").exists()


@pytest.mark.parametrize("layout, message", [
    ({"stripe_count": "0"}, "stripe_count must be a positive integer"),
    ({"stripe_unit": "1M"}, "stripe_unit must be a positive integer"),
    ({"pool": "a b"}, "layout pool must be a name"),
    ({"stripes": "2"}, "unknown layout field 'stripes'"),
])
def test_bad_layouts_name_the_field(layout, message):
    with pytest.raises(LayoutError, match=message):
        check_layout(layout)


def test_cephfs_rules():
    driver = CephFSDriver()
    with pytest.raises(LayoutError, match="multiple of 65536"):
        driver.check({"stripe_unit": 100000})
    with pytest.raises(LayoutError, match="object_size .* multiple of stripe_unit"):
        driver.check({"stripe_unit": 1 << 20, "object_size": 3 << 19})
    assert driver.check({"stripe_count": 3, "stripe_unit": 1 << 20}) == {"stripe_count": "3", "stripe_unit": "1048576"}
    assert parse("stripe_unit=4194304 stripe_count=1 object_size=4194304 pool=cephfs_data") == {
        "stripe_unit": "4194304", "stripe_count": "1", "object_size": "4194304", "pool": "cephfs_data"}


def test_lustre_has_no_object_size_and_asks_romio_for_the_same_striping():
    driver = LustreDriver()
    with pytest.raises(LayoutError, match="lustre has no layout field object_size"):
        driver.check({"object_size": 1 << 20})
    assert driver.mpi_hints({"stripe_count": 4, "stripe_unit": 1 << 20, "pool": "fast"}) == {
        "striping_factor": "4", "striping_unit": "1048576"}


def test_lustre_layout_is_set_with_lfs_setstripe_and_read_back(fake_lustre):
    data, log = fake_lustre
    assert isinstance(driver_for(data), LustreDriver)
    in_effect = apply_to_file(data / "testFile", {"stripe_count": "4", "stripe_unit": str(1 << 20)})
    assert in_effect == {"stripe_count": "4", "stripe_unit": "1048576"}
    assert log.read_text().splitlines()[0] == f"setstripe -c 4 -S 1048576 {data / 'testFile'}"
    assert (data / "testFile").exists()


def test_the_default_layout_is_read_from_a_probe_file_that_is_removed(fake_lustre, tmp_path):
    data, log = fake_lustre
    assert default_layout(data) == {"stripe_count": "1", "stripe_unit": "1048576"}
    assert "getstripe" in log.read_text() and list(data.iterdir()) == []
    with pytest.raises(LayoutError, match="has no file layouts"):
        default_layout(tmp_path)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".iotune-layout-probe")]


def test_lustre_refuses_a_file_that_holds_data(fake_lustre):
    data, _ = fake_lustre
    (data / "full").write_bytes(b"x")
    with pytest.raises(LayoutError, match="already holds data"):
        apply_to_file(data / "full", {"stripe_count": "2"})


def test_lustre_directory_layout(fake_lustre):
    data, log = fake_lustre
    out = data / "out"
    out.mkdir()
    assert apply_to_directory(out, {"stripe_count": "8", "pool": "fast"})["stripe_count"] == "8"
    assert log.read_text().splitlines()[0] == f"setstripe -c 8 -p fast {shlex.quote(str(out))}"


def test_lfs_missing_says_what_to_install(fake_lustre, monkeypatch):
    data, _ = fake_lustre
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(LayoutError, match="lfs not found"):
        apply_to_file(data / "f", {"stripe_count": "2"})


FAKE_LCTL = textwrap.dedent("""\
    #!{python}
    import json, os, sys
    state = os.environ["FAKE_LCTL_STATE"]
    values = json.load(open(state)) if os.path.exists(state) else {{}}
    args = sys.argv[1:]
    if args[0] == "set_param":
        for pair in args[1:]:
            key, value = pair.split("=")
            values[key] = value
        json.dump(values, open(state, "w"))
    elif args[0] == "get_param":
        # two OSCs (OST connections), as a client of a file system with two OSTs shows them
        print(values.get(args[-1], "32"))
        print(values.get(args[-1], "32"))
    """)


def test_lustre_client_settings_go_through_lctl_and_are_read_back(tmp_path, monkeypatch):
    from iotune.fslayout.lustre import set_client_settings

    lctl = tmp_path / "lctl"
    lctl.write_text(FAKE_LCTL.format(python=sys.executable))
    lctl.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_LCTL_STATE", str(tmp_path / "state.json"))
    assert set_client_settings({"max_dirty_mb": 256, "max_rpcs_in_flight": "16"}) == {
        "max_dirty_mb": ["256", "256"], "max_rpcs_in_flight": ["16", "16"]}
    with pytest.raises(LayoutError, match="unknown Lustre client setting max_cached_mb"):
        set_client_settings({"max_cached_mb": 1})
    with pytest.raises(LayoutError, match="positive integers"):
        set_client_settings({"max_dirty_mb": 0})
