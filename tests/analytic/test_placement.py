"""Object sizes of a striped file and the busiest server's load under the file system's placement."""

import numpy as np
import pytest

from iotune.analytic import ModelError
from iotune.analytic.placement import ServerLoads, object_bytes, placed_loads, server_loads

MIB = 2**20


@pytest.mark.parametrize(
    "size, count, unit, obj, expected",
    [
        (16 * MIB, 3, 4 * MIB, 32 * MIB, [8, 4, 4]),
        (16 * MIB, 3, 1 * MIB, 32 * MIB, [6, 5, 5]),
        (16 * MIB, 1, 4 * MIB, 4 * MIB, [4, 4, 4, 4]),  # CephFS's default layout spreads a file over objects
        (8 * MIB, 3, 4 * MIB, 32 * MIB, [4, 4]),  # 2 stripe units: the third object is never written
        (16 * MIB, 2, 1 * MIB, 4 * MIB, [4, 4, 4, 4]),  # two object sets of 2 objects
        (5 * MIB, 2, 2 * MIB, 32 * MIB, [3, 2]),  # a partial last unit
    ],
)
def test_ceph_object_bytes(size, count, unit, obj, expected):
    found = object_bytes(size, count, unit, obj)
    assert [b / MIB for b in found.bytes] == expected
    assert found.bytes.sum() == size
    assert found.pieces.sum() == -(-size // unit)


def test_lustre_has_one_object_per_ost_whatever_the_object_size():
    found = object_bytes(16 * MIB, 3, 1 * MIB, 4 * MIB, file_system="lustre")
    assert [b / MIB for b in found.bytes] == [6, 5, 5]


@pytest.mark.parametrize("args", [(0, 1, MIB, MIB), (MIB, 0, MIB, MIB), (MIB, 1, 0, MIB), (MIB, 1, MIB, MIB // 2),
                                  (MIB, 1, 3 * MIB, 4 * MIB)])
def test_object_bytes_rejects_impossible_layouts(args):
    with pytest.raises(ModelError) as info:
        object_bytes(*args)
    assert "\n" not in str(info.value)


def _expected_max(loads: ServerLoads) -> float:
    return float(np.dot(loads.weights, loads.bytes.max(axis=1)))


def test_two_equal_objects_on_three_servers_exactly():
    # both on one server with probability 1/3: E[max] = (1/3) 2x + (2/3) x = 4x/3
    loads = server_loads([object_bytes(8 * MIB, 2, 4 * MIB, 32 * MIB)], servers=3)
    assert loads.exact
    assert _expected_max(loads) == pytest.approx(8 * MIB * 2 / 3)


def test_uneven_objects_on_three_servers_exactly():
    # objects 8, 4, 4 MiB: distinct (2/9) 8; 8 with a 4 (4/9) 12; the two 4s together (2/9) 8; all (1/9) 16
    loads = server_loads([object_bytes(16 * MIB, 3, 4 * MIB, 32 * MIB)], servers=3)
    assert _expected_max(loads) == pytest.approx((2 * 8 + 4 * 12 + 2 * 8 + 16) / 9 * MIB)
    assert loads.weights.sum() == pytest.approx(1.0)


def test_monte_carlo_agrees_with_exact_enumeration():
    files = [object_bytes(4 * MIB, 3, 1 * MIB, 32 * MIB)] * 2  # 6 objects: 729 placements
    exact = server_loads(files, servers=3)
    sampled = server_loads(files, servers=3, max_exact=10, draws=20000, seed=1)
    assert exact.exact and not sampled.exact
    assert _expected_max(sampled) == pytest.approx(_expected_max(exact), rel=0.01)
    assert sampled.bytes.sum(axis=1) == pytest.approx(8 * MIB)


def test_replicas_land_on_distinct_servers():
    one = server_loads([object_bytes(4 * MIB, 1, 4 * MIB, 4 * MIB)], servers=3, replicas=2)
    assert np.all(one.bytes.max(axis=1) == 4 * MIB)
    assert np.all(one.bytes.sum(axis=1) == 8 * MIB)
    every = server_loads([object_bytes(12 * MIB, 3, 4 * MIB, 32 * MIB)], servers=3, replicas=3)
    assert np.all(every.bytes == 12 * MIB)


def test_lustre_round_robin_allocation():
    one = server_loads([object_bytes(12 * MIB, 3, 4 * MIB, 4 * MIB, file_system="lustre")], servers=3,
                       placement="round-robin")
    assert np.all(one.bytes == 4 * MIB)
    # two files of stripe count 2 on 3 OSTs: 4 objects round-robin, one OST holds two
    two = server_loads([object_bytes(8 * MIB, 2, 4 * MIB, 4 * MIB, file_system="lustre")] * 2, servers=3,
                       placement="round-robin")
    assert np.all(np.sort(two.bytes, axis=1) == np.array([4, 4, 8]) * MIB)


def test_server_loads_rejects_bad_systems():
    files = [object_bytes(MIB, 1, MIB, MIB)]
    for kwargs in ({"servers": 0}, {"servers": 2, "replicas": 3}, {"servers": 2, "placement": "hash"}):
        with pytest.raises(ModelError):
            server_loads(files, **kwargs)


def test_objects_per_server_count_every_object_and_replica():
    # CephFS's default layout on a 16 MiB file: 4 objects; in two copies, 8 on 3 servers, at most 4 on one
    loads = server_loads([object_bytes(16 * MIB, 1, 4 * MIB, 4 * MIB)], servers=3, replicas=2)
    assert np.all(loads.objects.sum(axis=1) == 8)
    assert loads.objects.max() == 4 and loads.objects.min() >= 0
    # an object's bytes and its count sit on the same server
    assert np.all((loads.objects > 0) == (loads.bytes > 0))
    one = server_loads([object_bytes(16 * MIB, 1, 4 * MIB, 32 * MIB)], servers=3)
    assert sorted(one.objects[0]) == [0, 0, 1]


def test_placed_loads_is_the_known_placement():
    one = object_bytes(16 * MIB, 2, 64 * 1024, 4 * MIB)
    assert one.numbers.tolist() == [0, 1, 2, 3]
    loads = placed_loads([one], [[0, 0, 0, 1]], servers=2)
    assert loads.weights.tolist() == [1.0]
    assert sorted(loads.bytes[0] / MIB) == [4, 12]
    assert sorted(loads.objects[0]) == [1, 3]
    with pytest.raises(ModelError):
        placed_loads([one], [[0, 0, 0, 2]], servers=2)


def test_object_numbers_skip_objects_never_written():
    found = object_bytes(8 * MIB, 3, 4 * MIB, 32 * MIB)
    assert found.numbers.tolist() == [0, 1]
