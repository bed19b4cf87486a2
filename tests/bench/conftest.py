"""Probes for the bench tests: skip MPI tests with a reason when mpiexec or mpi4py is missing."""

import importlib.util

import pytest

from iotune.errors import MpiNotFoundError


def _mpi_problem() -> str | None:
    from iotune.bench.world import find_mpiexec

    try:
        find_mpiexec()
    except MpiNotFoundError as exc:
        return str(exc)
    if importlib.util.find_spec("mpi4py") is None:
        return "mpi4py is not installed"
    return None


def pytest_collection_modifyitems(config, items):
    reason = _mpi_problem()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=f"requires_mpi: {reason}")
    for item in items:
        if "requires_mpi" in item.keywords:
            item.add_marker(skip)


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
