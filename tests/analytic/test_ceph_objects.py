"""CephFS object names and CRUSH's object -> placement group step, against Ceph's own answers."""

import csv
from pathlib import Path

import numpy as np
import pytest

from iotune.analytic import ModelError
from iotune.analytic.ceph_objects import file_servers, object_name, placement_group
from iotune.analytic.placement import object_bytes


# ``osdmaptool OSDMAP --test-map-object NAME --pool 1`` (pg_num 64) and ``--pool 3`` (pg_num 32), Ceph 16.2.15, on
# an osdmap of iotune's CephFS testbed: names of 10, 20, 23 and 24 characters (the hash's tail and block paths)
@pytest.mark.parametrize(
    "name, pg64, pg32",
    [
        ("100000001f8.00000000", 0x19, 0x19),
        ("100000001f8.00000001", 0x11, 0x11),
        ("10000000000.00000003", 0x0F, 0x0F),
        ("1000000abcd.0000000f", 0x35, 0x15),
        ("10000000200.00000002", 0x18, 0x18),
        ("1.00000000", 0x3F, 0x1F),
        ("123456789abcdef.00000007", 0x2A, 0x0A),
        ("12345678abcdef.00000007", 0x30, None),
        ("1234567890a.00000009", 0x0D, None),
    ],
)
def test_placement_group_is_cephs(name, pg64, pg32):
    assert placement_group(name, 64) == pg64
    if pg32 is not None:
        assert placement_group(name, 32) == pg32


def test_object_name_is_hex_inode_and_eight_hex_digits():
    assert object_name(0x10000000000, 3) == "10000000000.00000003"
    assert object_name(1099511628280, 17) == "100000001f8.00000011"
    with pytest.raises(ModelError):
        object_name(-1, 0)


def test_file_servers_reads_the_group_table():
    table = np.arange(64) % 3  # group g on OSD g mod 3
    servers = file_servers(0x100000001F8, [0, 1], table)
    assert servers.tolist() == [0x19 % 3, 0x11 % 3]
    with pytest.raises(ModelError):
        file_servers(1, [0], [])


GROUND_TRUTH = Path(__file__).resolve().parents[2] / "data" / "ground_truth"


def _pg_table(devices: int) -> np.ndarray:
    with open(GROUND_TRUTH / "striping" / "pg_osds.csv") as handle:
        rows = [r for r in csv.DictReader(line for line in handle if not line.startswith("#"))
                if int(r["devices"]) == devices]
    return np.array([int(r["osd"]) for r in sorted(rows, key=lambda r: int(r["pg"]))])


def test_recorded_inode_numbers_put_each_run_at_its_busiest_servers_time():
    # the striping-layouts rounds that recorded inode numbers: each run's objects placed by the hash and the
    # testbed's placement-group table, its busiest OSD writing at the throttle's 5 MB/s, nothing fitted
    tables = {2: _pg_table(2), 3: _pg_table(3)}
    errors = []
    with open(GROUND_TRUTH / "striping_layouts.csv") as handle:
        for row in csv.DictReader(handle):
            inodes = [int(i) for i in row["file_inodes"].split()]
            if not inodes:
                continue
            files = len(inodes)
            unit = int(row["cfg.stripe_unit"] or 1 << 20)
            objects = object_bytes(int(row["bytes"]) // files, int(row["cfg.stripe_count"]), unit,
                                   int(row["cfg.object_size"]))
            load = np.zeros(int(row["cfg.devices"]))
            for inode in inodes:
                np.add.at(load, file_servers(inode, objects.numbers, tables[load.size]), objects.bytes)
            errors.append(abs(load.max() / 5e6 - float(row["seconds"])) / float(row["seconds"]))
    assert len(errors) >= 500
    assert np.median(errors) < 0.05 and np.mean(np.array(errors) < 0.1) > 0.85
