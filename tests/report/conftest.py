"""Stores with the three kinds of study the report is tested on, built once per test session."""

import pytest

from iotune.store import Store
from tests.report.studies import GROUND_TRUTH, demo_study, ground_truth_study, search_study, tuned_study


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory):
    """(store, study): the demo's studies, measured by the synthetic runner (3 repeats, some failures)."""
    root = tmp_path_factory.mktemp("demo")
    with Store(root / "demo.db") as store:
        yield store, demo_study(store, root)


@pytest.fixture(scope="session")
def search_store(tmp_path_factory):
    """(store, study): a genetic search of 12 configurations."""
    root = tmp_path_factory.mktemp("search")
    with Store(root / "search.db") as store:
        yield store, search_study(store, root)


@pytest.fixture(scope="session")
def tuned_store(tmp_path_factory):
    """(store, study): two workloads measured in full on ext4, a third tuned in 5 single runs."""
    root = tmp_path_factory.mktemp("tuned")
    with Store(root / "tuned.db") as store:
        yield store, tuned_study(store, root)


@pytest.fixture(scope="session")
def ground_truth_store(tmp_path_factory):
    """(store, study): the testbed ground truth, 1,080 real trials."""
    if not (GROUND_TRUTH / "testbed_ground_truth.csv").exists():
        pytest.skip("data/ground_truth/testbed_ground_truth.csv is missing")
    with Store(tmp_path_factory.mktemp("gt") / "gt.db") as store:
        yield store, ground_truth_study(store)
