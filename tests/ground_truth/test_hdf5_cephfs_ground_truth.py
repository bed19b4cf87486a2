"""The HDF5 settings ground truth on the CephFS testbed (data/ground_truth/hdf5_cephfs*.csv: OSDs at 5 and at 2 MB/s;
benchmarks/hdf5_settings.py --cephfs): every variant, layouts included, of every workload in every round, each trial's HDF5 settings, hints and
CephFS layout in effect as asked (the layout read back from the file after the write).  Needs only the CSV."""

import csv
from collections import Counter
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "data" / "ground_truth"


@pytest.fixture(scope="module", params=["hdf5_cephfs.csv", "hdf5_cephfs_2mbps.csv"])
def rows(request):
    path = DATA / request.param
    if not path.exists():
        pytest.skip(f"{path.name} has not been measured yet")
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_every_variant_and_layout_ran_in_every_round_on_both_workloads(rows):
    from benchmarks.hdf5_settings import LAYOUT_VARIANTS, VARIANTS

    cells = Counter((row["datasets"], row["variant"]) for row in rows)
    rounds = len({row["round"] for row in rows})
    assert {variant for _, variant in cells} == set(VARIANTS) | set(LAYOUT_VARIANTS)
    assert len({datasets for datasets, _ in cells}) == 2
    assert set(cells.values()) == {rounds} and rounds >= 8
    assert all(float(row["seconds"]) > 0 and int(row["bytes"]) == 2 * 4 * 2**20 for row in rows)


def test_every_setting_and_layout_took_effect(rows):
    from benchmarks.hdf5_settings import LAYOUT_VARIANTS

    assert [row for row in rows if row["not_in_effect"]] == []
    for row in rows:
        collective = LAYOUT_VARIANTS[row["variant"]][0][0] if row["variant"] in LAYOUT_VARIANTS else \
            row["variant"].startswith("collective")
        assert row["collective_in_effect"] == ("true" if collective else "false")
        striped = row["variant"].startswith("striped")
        assert row["layout_in_effect"] == ("3 x 1MiB, object 4MiB" if striped else "")
    aligned = {"alignment 1MiB": 2**20, "striped, alignment 1MiB (the stripe unit)": 2**20,
               "alignment 4MiB (the object size)": 4 * 2**20}
    for variant, alignment in aligned.items():
        assert {row["alignment_in_effect"] for row in rows if row["variant"] == variant} == {str(alignment)}
