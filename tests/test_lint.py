"""Habits (issue 21): ``ruff check src`` finds no unused import or name and no undefined name (the F rules)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> list[str]:
    beside = Path(sys.executable).with_name("ruff")
    if beside.exists():
        return [str(beside)]
    if shutil.which("ruff"):
        return [shutil.which("ruff")]
    pytest.skip("ruff is a test dependency: pip install -e '.[test]'")


def test_ruff_finds_nothing_of_the_f_rules_in_src():
    done = subprocess.run([*_ruff(), "check", "--select", "F", "--output-format", "concise", "src"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
