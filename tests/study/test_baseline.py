"""Issue 29: the baseline is what the user runs today: ROMIO's own defaults (read back with MPI_File_get_info), or
the settings named, said in the answer."""

import pytest

from iotune.bench.romio_defaults import romio_defaults
from iotune.study import Objective, Study, Worker
from iotune.study.tune import SPEC_DEFAULT, TuneError, Tuning, baseline_values
from tests.study.test_tune import SPEC, Landscape, measured_store

WORKLOAD = {"transfer_size": 256 * 1024}
ROMIO = {"romio_cb_write": "automatic", "cb_nodes": "1", "cb_buffer_size": "16777216", "romio_ds_write": "automatic"}


def test_romio_defaults_map_onto_the_levels_of_the_space():
    values, what, notes = baseline_values(SPEC.space, WORKLOAD, "romio", lambda: ROMIO)
    assert values == {"romio_cb_write": "automatic", "cb_nodes": 1, "cb_buffer_size": 16 * 2**20}
    assert what.startswith("ROMIO's defaults") and notes == []
    values, _, notes = baseline_values(SPEC.space, WORKLOAD, "romio", lambda: {**ROMIO, "cb_nodes": "8"})
    assert "cb_nodes" not in values and "cb_nodes=8 is not a level of cb_nodes" in notes[0]


def test_named_settings_are_the_baseline_and_bad_ones_are_one_line():
    values, what, _ = baseline_values(SPEC.space, WORKLOAD, "romio_cb_write=disable,cb_nodes=4", None)
    assert values == {"romio_cb_write": "disable", "cb_nodes": 4} and "romio_cb_write=disable" in what
    assert baseline_values(SPEC.space, WORKLOAD, None, None) == ({}, SPEC_DEFAULT, [])
    with pytest.raises(TuneError, match="not system_parameter=value"):
        baseline_values(SPEC.space, WORKLOAD, "transfer_size=1MiB", None)
    with pytest.raises(TuneError, match="--baseline"):
        baseline_values(SPEC.space, WORKLOAD, "cb_nodes=3", None)


LAYOUT_SPACE = """\
name: layouts
parameters:
  - {name: transfer_size, type: size, levels: [1MiB], role: workload, layer: application}
  - {name: stripe_count, type: integer, levels: [1, 2, 3], role: system, layer: filesystem}
  - {name: object_size, type: size, levels: [32MiB, 4MiB], role: system, layer: filesystem}
  - {name: stripe_unit, type: size, levels: [1MiB, 2MiB], role: system, layer: filesystem}
  - {name: romio_cb_write, type: categorical, levels: [enable, disable], role: system, layer: mpiio}
"""
CEPHFS_ROOT = {"stripe_unit": "4194304", "stripe_count": "1", "object_size": "4194304", "pool": "cephfs_data"}


def test_the_file_systems_default_layout_maps_onto_the_layout_levels():
    from iotune.space import Space

    space = Space.from_text(LAYOUT_SPACE)
    values, what, notes = baseline_values(space, {"transfer_size": 2**20}, "filesystem", None, lambda: CEPHFS_ROOT)
    # CephFS's root layout: one 4 MiB object after another, not the spec's first levels (32 MiB objects)
    assert values == {"stripe_count": 1, "object_size": 4 * 2**20}
    assert "default layout" in what and "object_size=4194304" in what
    assert notes == ["the default stripe_unit=4194304 is not a level of stripe_unit: the baseline uses the spec's "
                     "default, 1MiB"]
    with pytest.raises(TuneError, match="--baseline filesystem cannot be read here"):
        baseline_values(space, {"transfer_size": 2**20}, "filesystem", None, None)


def test_a_tuning_measures_the_named_baseline_first_and_states_the_gain_against_it(tmp_path):
    values, what, _ = baseline_values(SPEC.space, WORKLOAD, "romio", lambda: ROMIO)
    with measured_store(tmp_path) as store:
        study = Study.open(store, "landscape")
        result = Tuning(study, Worker(study, Landscape(seed=2), tmp_path), WORKLOAD, 6, objective=Objective("time"),
                        baseline_values=values, baseline_source=what).run()
    first = result.steps[0].configuration
    assert first["cb_buffer_size"] == 16 * 2**20 and first["romio_cb_write"] == "automatic"
    assert result.default.configuration == first and result.baseline_source == what


@pytest.mark.requires_mpi
def test_romio_reports_its_default_hints_for_a_file_opened_with_none(tmp_path):
    hints = romio_defaults(tmp_path)
    assert hints["romio_cb_write"] == "automatic" and int(hints["cb_buffer_size"]) > 0
    assert list(tmp_path.iterdir()) == []  # the probe's file is gone


def test_the_file_systems_layout_as_baseline_on_a_file_system_without_layouts_is_one_line(tmp_path):
    import contextlib
    import io

    from iotune.cli.app import main

    spec = tmp_path / "layouts.yaml"
    spec.write_text(LAYOUT_SPACE + "benchmark: {api: MPIIO, processes: 1, block_size: 1MiB, segment_count: 1}\n")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["tune", str(spec), "--budget", "2", "--baseline", "filesystem", "--db", str(tmp_path / "db"),
                     "--scratch", str(tmp_path / "scratch")])
    assert code == 2 and "has no file layouts" in err.getvalue() and len(err.getvalue().strip().splitlines()) == 1
    assert not (tmp_path / "scratch").exists() or not list((tmp_path / "scratch").iterdir())
