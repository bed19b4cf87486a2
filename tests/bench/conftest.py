"""Fixtures for the bench tests (the MPI probe is in tests/conftest.py)."""

import pytest


@pytest.fixture
def scratch(tmp_path):
    """An empty scratch directory for one test."""
    path = tmp_path / "scratch"
    path.mkdir()
    return path


@pytest.fixture(scope="module")
def runner():
    """One BuiltinRunner shared by a module's tests, so its worker world is reused."""
    from iotune.bench.runner import BuiltinRunner

    with BuiltinRunner(timeout=60) as built:
        yield built
