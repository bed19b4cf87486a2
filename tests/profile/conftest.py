"""A session cache of Darshan profiles: each log is read (one pydarshan child process) once per test run."""

from pathlib import Path

import pytest

from iotune.profile import from_darshan

LOGS = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def profile():
    """``profile("name")``: the Workload of ``fixtures/name.darshan`` (shared between tests: do not modify it)."""
    cache = {}

    def get(name: str):
        if name not in cache:
            cache[name] = from_darshan(LOGS / f"{name}.darshan")
        return cache[name]

    return get
