"""CephFS object names and CRUSH's object -> placement group step, against Ceph's own answers."""

import numpy as np
import pytest

from iotune.analytic import ModelError
from iotune.analytic.ceph_objects import file_servers, object_name, placement_group


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
