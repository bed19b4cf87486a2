"""The HDF5 settings ground truth on local disk (data/ground_truth/hdf5_local.csv, benchmarks/hdf5_settings.py):
every variant of every workload in every round, each trial's settings in effect as asked.  Needs only the CSV."""

import csv
from collections import Counter
from pathlib import Path

import pytest

CSV = Path(__file__).resolve().parents[2] / "data" / "ground_truth" / "hdf5_local.csv"
pytestmark = pytest.mark.skipif(not CSV.exists(), reason=f"{CSV.name} has not been measured yet")


@pytest.fixture(scope="module")
def rows():
    with open(CSV, newline="") as handle:
        return list(csv.DictReader(handle))


def test_every_variant_ran_in_every_round_on_both_workloads(rows):
    from benchmarks.hdf5_settings import VARIANTS

    cells = Counter((row["datasets"], row["variant"]) for row in rows)
    rounds = len({row["round"] for row in rows})
    assert {variant for _, variant in cells} == set(VARIANTS)
    assert set(cells.values()) == {rounds} and rounds >= 5
    assert all(float(row["seconds"]) > 0 and int(row["bytes"]) == 2 * 64 * 2**20 for row in rows)


def test_every_setting_took_effect_and_collective_transfers_were_collective(rows):
    assert [row for row in rows if row["not_in_effect"]] == []
    for row in rows:
        assert row["collective_in_effect"] == ("true" if row["variant"].startswith("collective") else "false")
    assert {row["alignment_in_effect"] for row in rows if row["variant"] == "alignment 1MiB"} == {str(2**20)}
