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


def test_runs_of_an_imported_study_take_file_per_process_from_the_configuration(tmp_path):
    # an imported study's trials keep no benchmark spec: a file per process must come from the configuration
    from iotune.analytic.striped_study import study_runs
    from iotune.spec import load_spec
    from iotune.store import Store, exchange
    from iotune.stored import StoredStudy

    spec = tmp_path / "fpp.yaml"
    spec.write_text("""
name: fpp-layouts
parameters:
  - {name: file_per_process, type: boolean, levels: [false, true], role: workload, layer: application}
  - {name: object_size, type: size, levels: [4MiB, 32MiB], role: system, layer: filesystem}
benchmark: {api: MPIIO, operation: write, processes: 2, block_size: 8MiB, layout: {stripe_unit: 1048576}}
storage: {fs: cephfs, devices: 3, write_mbps: 5}
""")
    table = tmp_path / "fpp.csv"
    rows = ["trial_uid,repeat,phase,bytes,seconds,cfg.file_per_process,cfg.object_size"]
    rows += [f"{i:032x},0,write,16777216,{1.5 + i / 10},{fpp},{size}"
             for i, (fpp, size) in enumerate([(f, s) for f in ("False", "True") for s in (4 * MIB, 32 * MIB)])]
    table.write_text("\n".join(rows) + "\n")
    with Store(str(tmp_path / "s.db")) as store:
        exchange.import_file(store, table, spec=load_spec(spec))
        runs = study_runs(StoredStudy.open(store, "fpp-layouts"))
    files = sorted((r.write.files, r.write.file_bytes, r.write.object_size) for r in runs)
    assert files == [(1, 16 * MIB, 4 * MIB), (1, 16 * MIB, 32 * MIB), (2, 8 * MIB, 4 * MIB), (2, 8 * MIB, 32 * MIB)]
