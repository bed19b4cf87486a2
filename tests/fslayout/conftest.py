"""The testbed fixtures, for the layout tests on a CephFS testbed, and a stand-in Lustre."""

import os
import sys
import textwrap

import pytest

from tests.testbed.conftest import testbed_root  # noqa: F401 - a fixture

# A stand-in for Lustre's lfs: keeps each path's layout in PATH.layout, refuses a file that exists, logs its argv.
FAKE_LFS = textwrap.dedent("""\
    #!{python}
    import json, os, sys
    args = sys.argv[1:]
    with open(os.environ["FAKE_LFS_LOG"], "a") as log:
        log.write(" ".join(args) + "\\n")
    path = args[-1]
    store = path + ".layout" if not os.path.isdir(path) else os.path.join(path, ".layout")
    if args[0] == "setstripe":
        if os.path.isfile(path):
            sys.exit("error: setstripe: cannot create composite file '" + path + "': File exists")
        names = {{"-c": "stripe_count", "-S": "stripe_unit", "-p": "pool"}}
        layout = {{names[args[i]]: args[i + 1] for i in range(1, len(args) - 1, 2)}}
        if not os.path.isdir(path):
            open(path, "w").close()
        json.dump(layout, open(store, "w"))
    elif args[0] == "getstripe":
        layout = json.load(open(store)) if os.path.exists(store) else {{}}
        option = {{"--stripe-count": "stripe_count", "--stripe-size": "stripe_unit", "--pool": "pool"}}[args[1]]
        print(layout.get(option, {{"stripe_count": "1", "stripe_unit": "1048576", "pool": ""}}[option]))
    """)


@pytest.fixture
def fake_lustre(tmp_path, monkeypatch):
    """``lfs`` on PATH and tmp_path seen as a Lustre mount."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    lfs = bin_dir / "lfs"
    lfs.write_text(FAKE_LFS.format(python=sys.executable))
    lfs.chmod(0o755)
    log = tmp_path / "lfs.log"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_LFS_LOG", str(log))
    data = tmp_path / "lustre"
    data.mkdir()
    import iotune.fslayout.drivers as drivers

    real = drivers.file_system_of
    monkeypatch.setattr(drivers, "file_system_of",
                        lambda p: ("lustre", data) if str(p).startswith(str(data)) else real(p))
    return data, log
