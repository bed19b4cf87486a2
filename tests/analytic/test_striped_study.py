"""Layouts ranked by the placement model over a space that also varies the data pool and the number of servers."""

from iotune.analytic.striped_placement import StripedPlacementModel
from iotune.analytic.striped_study import rank_layouts
from iotune.space import Space

MIB = 2**20
SPACE = Space.from_text("""
name: layout-space
parameters:
  - {name: devices, type: integer, levels: [2, 3], role: system, layer: device}
  - {name: pool, type: categorical, levels: [cephfs_data, cephfs_replicated], role: system, layer: filesystem}
  - {name: object_size, type: size, levels: [4MiB, 32MiB], role: system, layer: filesystem}
  - {name: stripe_count, type: integer, levels: [1, 3], role: system, layer: filesystem}
""")
BENCHMARK = {"processes": 2, "block_size": "1MiB", "segment_count": 8, "file_per_process": False,
             "layout": {"stripe_unit": 1048576}}


def test_servers_pool_and_object_size_are_ranked_together():
    model = StripedPlacementModel(bandwidth=5e6, overhead_s=0.1, sigma=0.1)
    ranked = rank_layouts(model, SPACE, BENCHMARK, {})
    assert len(ranked) == 16
    best, worst = ranked[0].layout, ranked[-1].layout
    assert (best["servers"], best["pool"], best["object_size"]) == (3, "cephfs_data", 4 * MIB)
    # one 16 MiB object: a whole server's worth, whether one copy or two
    assert (worst["stripe_count"], worst["object_size"]) == (1, 32 * MIB)
    assert ranked[-1].mean_s >= 0.1 + 16 * MIB / 5e6 - 1e-9
    replicated = [r.mean_s for r in ranked if r.layout["pool"] == "cephfs_replicated"]
    plain = [r.mean_s for r in ranked if r.layout["pool"] == "cephfs_data"]
    assert min(replicated) > min(plain)
    assert all(r.low_s <= r.mean_s <= r.high_s for r in ranked)
