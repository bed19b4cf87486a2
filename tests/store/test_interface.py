"""The storage interface (issue 21): ``Storage`` names every operation the rest of iotune uses, ``Store``
implements it, and export/import work through it from outside the store."""

from __future__ import annotations

import inspect

import pytest

from iotune.store import Storage, Store, exchange
from iotune.store.base import BulkImport


def _public(cls) -> set[str]:
    return {name for name, _ in inspect.getmembers(cls) if not name.startswith("_")}


def test_every_public_operation_of_the_store_is_declared_by_the_interface():
    assert issubclass(Store, Storage)
    assert _public(Store) - _public(Storage) == set()


def test_the_store_implements_every_operation_the_interface_declares():
    assert not getattr(Store, "__abstractmethods__", None)
    assert Storage.__abstractmethods__ >= {"claim", "trials", "bulk_import", "create_study", "save_model"}


def test_a_storage_missing_an_operation_cannot_be_made():
    class Partial(Storage):
        def close(self):
            pass

    with pytest.raises(TypeError, match="abstract"):
        Partial()


def test_export_and_import_are_not_methods_of_the_store():
    assert not hasattr(Store, "export") and not hasattr(Store, "import_file")
    for function in (exchange.export, exchange.import_file):
        assert next(iter(inspect.signature(function).parameters)) == "storage"


def test_the_backend_fixture_hands_out_a_storage(store):
    assert isinstance(store, Storage)
    with store.bulk_import() as bulk:
        assert isinstance(bulk, BulkImport)
        assert bulk.study("nothing") is None
