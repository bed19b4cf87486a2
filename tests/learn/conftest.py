"""Fixtures: a synthetic study (test data, see ``synthetic.py``) built once and copied per test."""

from __future__ import annotations

import shutil

import pytest

from iotune.store import Store
from iotune.stored import StoredStudy
from tests.learn import synthetic


@pytest.fixture(scope="session")
def synthetic_db(tmp_path_factory):
    """Path of a SQLite store holding study "synth": 4 workloads x 24 configurations x 2 repeats."""
    path = tmp_path_factory.mktemp("learning") / "synthetic.db"
    with Store(path) as store:
        synthetic.build_study(store)
    return path


@pytest.fixture
def db_path(synthetic_db, tmp_path):
    """A private copy of the synthetic store, free to modify."""
    path = tmp_path / "store.db"
    shutil.copy(synthetic_db, path)
    return path


@pytest.fixture
def store(db_path):
    with Store(db_path) as opened:
        yield opened


@pytest.fixture
def synth(store):
    """Study "synth" of the private store."""
    return StoredStudy.open(store, "synth")
