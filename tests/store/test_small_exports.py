"""A few hundred bytes of export must not turn into minutes or gigabytes after import (issue 13, item 7)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from iotune.space import Space

WIDE = """\
name: wide
parameters:
  - {name: a, type: integer, range: [1, 100000], step: 1, role: system, layer: mpiio}
  - {name: b, type: integer, range: [1, 100000], step: 1, role: system, layer: mpiio}
  - {name: c, type: integer, range: [1, 100000], step: 1, role: system, layer: mpiio}
"""


@pytest.mark.slow
def test_an_export_of_three_100000_level_ranges_imports_and_is_described_briefly(tmp_path):
    """Before: duplicate levels were found by list search and the hints noted by list search (quadratic in levels):
    this 482-byte export ran for minutes.  A hang guard, not a timing: the child gets 120 s."""
    space = Space.from_text(WIDE)
    export = {"format": "iotune-export", "version": 1, "source": {"host": "them"}, "platforms": [],
              "studies": [{"name": "wide", "space_hash": space.hash, "space_yaml": WIDE, "settings": {},
                           "trials": []}]}
    (tmp_path / "wide.json").write_text(json.dumps(export))
    assert (tmp_path / "wide.json").stat().st_size < 600
    done = subprocess.run([sys.executable, "-m", "iotune", "import", "wide.json", "--db", "s.db"], cwd=tmp_path,
                          env={**os.environ, "IOTUNE_PLAIN": "1"}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "a = 1 | 2 | 3 | 4 | 5 | 6 | ...;" in done.stderr and len(done.stderr) < 1000
    (tmp_path / "spec.yaml").write_text(WIDE)
    shown = subprocess.run([sys.executable, "-m", "iotune", "space", "show", "-c", "--limit", "2", "-f", "csv",
                            "spec.yaml"], cwd=tmp_path, env={**os.environ, "IOTUNE_PLAIN": "1"}, capture_output=True,
                           text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[1:] and len(shown.stdout.splitlines()) == 3
