"""Measurement tables: trials grouped and summed, features encoded, failures kept, bad files refused."""

import math
from pathlib import Path

import numpy as np
import pytest

from iotune.transfer import Feature, TableSpec, TransferError, load_table

ROOT = Path(__file__).resolve().parents[2]

PHASES = """trial,phase,seconds,api,size,fs,disk,nodes
t1,write,1.0,POSIX,65536,ext4,slow,4
t1,read,2.0,POSIX,65536,ext4,slow,4
t2,write,1.5,POSIX,65536,ext4,slow,4
t2,read,2.5,POSIX,65536,ext4,slow,4
t3,write,0.5,MPIIO,1048576,xfs,fast,8
t3,read,,MPIIO,1048576,xfs,fast,8
t4,write,0.25,MPIIO,1048576,ext4,slow,4
t4,read,0.25,MPIIO,1048576,ext4,slow,4
"""


def spec(path, **changes):
    fields = dict(name="toy", path=path, workload=(Feature("api"), Feature("size", "log2")),
                  configuration=(Feature("fs"), Feature("disk", "ordinal", ("slow", "fast")), Feature("nodes", "log2")),
                  objectives={"time": "seconds"}, trial="trial", summed=("seconds",))
    fields.update(changes)
    return TableSpec(**fields)


def write(tmp_path, text):
    path = tmp_path / "table.csv"
    path.write_text(text)
    return path


def test_trials_are_grouped_summed_and_encoded(tmp_path):
    table = load_table(spec(write(tmp_path, PHASES)))
    assert table.workloads == ["MPIIO/1048576", "POSIX/65536"]
    assert table.configurations == ["ext4/slow/4", "xfs/fast/8"]
    assert table.feature_names["configuration"] == ["fs=ext4", "fs=xfs", "disk", "log2(nodes)"]
    np.testing.assert_array_equal(table.configuration_features, [[1, 0, 0, 2], [0, 1, 1, 3]])
    np.testing.assert_array_equal(table.workload_features, [[1, 0, 20], [0, 1, 16]])
    time = table.values["time"]
    assert time.shape == (2, 2, 2)
    np.testing.assert_allclose(time[1, 0], [3.0, 4.0])  # write + read of t1 and t2, the two repeats
    truth = table.truth("time")
    assert truth[1, 0] == pytest.approx(3.5)
    assert truth[0, 1] == math.inf  # t3 lost its read phase: a failed trial, never the optimum
    assert math.isnan(truth[1, 1])  # POSIX never ran on xfs/fast
    assert table.available.tolist() == [[True, True], [True, False]]
    # each workload's and configuration's values as read, in the rows' order
    assert table.workload_points == [{"api": "MPIIO", "size": 1048576.0}, {"api": "POSIX", "size": 65536.0}]
    assert table.configuration_points[1] == {"fs": "xfs", "disk": "fast", "nodes": 8.0}


def test_a_measurement_draws_a_recorded_repeat_or_reports_the_failure(tmp_path):
    table = load_table(spec(write(tmp_path, PHASES)))
    rng = np.random.default_rng(0)
    draws = {table.measure("time", 1, 0, rng) for _ in range(50)}
    assert draws == {3.0, 4.0}
    assert table.measure("time", 0, 1, rng) is None
    with pytest.raises(TransferError, match="never measured"):
        table.measure("time", 1, 1, rng)


def test_a_failed_column_and_derived_columns(tmp_path):
    text = "w,c,t,bad\na,x,2.0,False\na,y,3.0,True\nb,x,1.0,false\n"
    table = load_table(TableSpec("flags", write(tmp_path, text), (Feature("w"),), (Feature("c"),),
                                 {"time": "t", "double": "t2"}, failed="bad",
                                 derive=lambda trial: trial | {"t2": str(2 * float(trial["t"]))}))
    assert table.failed_cells.tolist() == [[False, True], [False, False]]
    assert table.truth("double")[0, 0] == 4.0


@pytest.mark.parametrize("text, changes, message", [
    ("trial,phase,seconds,api,size,fs,disk,nodes\nt1,w,-1,POSIX,1,ext4,slow,4\n", {}, "positive"),
    ("trial,phase,seconds,api,size,fs,disk,nodes\nt1,w,1,POSIX,1,ext4,medium,4\n", {}, "not among its levels"),
    ("trial,phase,seconds,api,size,fs,disk,nodes\nt1,w,1,POSIX,0,ext4,slow,4\n", {}, "positive for a log2"),
    ("trial,phase,seconds,api,size,fs,disk,nodes\nt1,w,abc,POSIX,1,ext4,slow,4\n", {}, "expected a number"),
    ("trial,phase,seconds,api,fs,disk,nodes\nt1,w,1,POSIX,ext4,slow,4\n", {}, "missing column"),
    ("", {}, "empty"),
])
def test_bad_tables_are_one_clear_error(tmp_path, text, changes, message):
    with pytest.raises(TransferError, match=message):
        load_table(spec(write(tmp_path, text), **changes))


def test_a_missing_file_and_a_bad_kind():
    with pytest.raises(TransferError, match="cannot read"):
        load_table(spec(Path("/nonexistent/table.csv")))
    with pytest.raises(TransferError, match="kind must be"):
        Feature("x", "fuzzy")
    with pytest.raises(TransferError, match="needs its levels"):
        Feature("x", "ordinal")


def test_the_vendored_scout_table():
    table = load_table(TableSpec(
        "scout", ROOT / "data/public/scout/scout.csv", (Feature("workload"),),
        (Feature("vm_family"), Feature("vm_size", "ordinal", ("large", "xlarge", "2xlarge")), Feature("n_vms", "log2")),
        {"time": "time", "cost": "cost"}, failed="failed"))
    assert table.values["time"].shape == (18, 69, 1)
    assert table.failed_cells.sum() == 75
    truth = table.truth("cost")
    assert np.isfinite(truth).sum() == 18 * 69 - 75


def test_inactive_numeric_cells_take_the_missing_value(tmp_path):
    text = "w,nodes,buffer,sieve,t\ncoll,2,1048576,,1.0\ncoll,4,1048576,,2.0\nind,,,enable,3.0\nind,,,disable,4.0\n"
    table = load_table(TableSpec("hints", write(tmp_path, text), (Feature("w"),),
                                 (Feature("nodes", "log2", missing=-1.0), Feature("buffer", "log2", missing=-1.0),
                                  Feature("sieve")), {"time": "t"}))
    assert table.feature_names["configuration"] == ["log2(nodes)", "log2(buffer)", "sieve=", "sieve=disable",
                                                    "sieve=enable"]
    np.testing.assert_array_equal(table.configuration_features[:, :2], [[-1, -1], [-1, -1], [1, 20], [2, 20]])
    assert table.available.tolist() == [[False, False, True, True], [True, True, False, False]]
    assert table.configuration_points[0] == {"nodes": "", "buffer": "", "sieve": "disable"}
    with pytest.raises(TransferError, match="expected a number"):
        load_table(TableSpec("hints", write(tmp_path, text), (Feature("w"),), (Feature("nodes", "log2"),),
                             {"time": "t"}))


def test_a_table_and_a_space_encode_the_same_values_alike(tmp_path):
    """One encoder (space/encoding.py): a table's features and a space's parameters of the same kinds give the
    same numbers for the same configurations (one-hot, level index, log2, number)."""
    from iotune.space import Space

    space = Space.from_text("""
name: both
parameters:
  - {name: fs, type: categorical, levels: [ext4, xfs], role: system, layer: filesystem}
  - {name: disk, type: categorical, levels: [slow, fast], role: system, layer: device}
  - {name: size, type: size, levels: [4096, 65536, 1048576], role: system, layer: application}
  - {name: nodes, type: integer, levels: [1, 3, 8], role: system, layer: application}
""")
    configurations = list(space.enumerate())
    rows = "".join(f"{c['fs']},{c['disk']},{c['size']},{c['nodes']},1.0\n" for c in configurations)
    path = write(tmp_path, "fs,disk,size,nodes,t\n" + rows)
    for mode, kind in (("onehot", "categorical"), ("ordinal", "ordinal")):
        features = (Feature("fs", kind, ("ext4", "xfs")), Feature("disk", kind, ("slow", "fast")),
                    Feature("size", "log2"), Feature("nodes", "numeric"))
        table = load_table(TableSpec("both", path, (), features, {"t": "t"}))
        encoder = space.encoder(mode)
        order = [table.configurations.index("/".join(str(c[p.name]) for p in space.parameters))
                 for c in configurations]
        assert table.feature_names["configuration"] == list(encoder.feature_names)
        np.testing.assert_array_equal(table.configuration_features[order], encoder.transform(configurations))
