"""The backend-parametrized fixtures: every store test runs on SQLite and on PostgreSQL, against the storage
interface (``iotune.store.Storage``) that ``Store`` implements."""

from __future__ import annotations

import itertools

import pytest

from iotune.store import Storage, Store

BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.requires_postgres)]


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


@pytest.fixture
def new_url(backend, tmp_path, request):
    """Factory: the URL of a fresh, empty database of the test's backend on each call."""
    if backend == "sqlite":
        counter = itertools.count()
        return lambda: f"sqlite:///{tmp_path}/store{next(counter)}.db"
    return request.getfixturevalue("new_postgres_database")


@pytest.fixture
def open_store(new_url):
    """Factory: a Storage (the SQL ``Store``) on a fresh database (or on ``url``), closed after the test."""
    opened = []

    def make(url: str | None = None) -> Storage:
        store = Store(url or new_url())
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def store(open_store) -> Storage:
    return open_store()
