"""Fixture: a synthetic store with repeated runs (test data, see ``repeats_data.py``), built once per session."""

from __future__ import annotations

import pytest
from tests.variability import repeats_data

from iotune.store import Store


@pytest.fixture(scope="session")
def var_db(tmp_path_factory):
    """SQLite store: study "var" (96 configurations x 8 runs), "once" (1 run each), "gap" (2 categories unmeasured)."""
    path = tmp_path_factory.mktemp("variability") / "var.db"
    with Store(path) as store:
        repeats_data.build(store)
        repeats_data.build(store, "once", repeats=1)
        repeats_data.build(store, "gap", skip=(("enable", "strided"), ("disable", "contiguous")))
    return path


@pytest.fixture(scope="session")
def var_repeats(var_db):
    from iotune.stored import StoredStudy
    from iotune.variability import Repeats

    with Store(var_db) as store:
        return Repeats.from_study(StoredStudy.open(store, "var"))
