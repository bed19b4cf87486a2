"""``iotune bench`` on an HDF5 spec: five HDF5 settings and ROMIO hints, each read back from the file written."""

import textwrap

import pytest

from iotune.space import Space
from iotune.spec.mapping import asked_value, is_hdf5_parameter, read_back_key
from iotune.store import Store
from tests.cli.conftest import run_iotune

pytestmark = [pytest.mark.requires_mpi, pytest.mark.requires_h5py_mpi]

SPEC = textwrap.dedent("""\
    name: h5
    parameters:
      - {name: datasets, type: integer, levels: [1, 4], role: system, layer: hdf5}
      - {name: chunked, type: boolean, role: system, layer: hdf5}
      - {name: alignment, type: size, levels: [1, 64KiB], role: system, layer: hdf5}
      - {name: meta_block_size, type: size, levels: [2KiB, 64KiB], role: system, layer: hdf5}
      - {name: mdc_initial_size, type: size, levels: [2MiB, 8MiB], role: system, layer: hdf5}
      - {name: coll_metadata, type: boolean, role: system, layer: hdf5}
      - {name: fs_strategy, type: categorical, levels: [fsm_aggr, PAGE_OR_AGGR], role: system, layer: hdf5}
      - {name: romio_cb_write, type: categorical, levels: [enable, disable], role: system, layer: mpiio}
      - {name: cb_buffer_size, type: size, levels: [1MiB, 4MiB], role: system, layer: mpiio}
    benchmark: {api: HDF5, processes: 2, block_size: 256KiB, transfer_size: 64KiB, collective: true,
                operation: write, hdf5: {alignment_threshold: 16KiB}}
    campaign: {repeats: 1, sampler: random, budget: 4, seed: 3}
""")


def _bench(tmp_path, name, spec_text):
    (tmp_path / f"{name}.yaml").write_text(spec_text.replace("name: h5", f"name: {name}"))
    (tmp_path / "scratch").mkdir(exist_ok=True)
    db = tmp_path / "s.db"
    done = run_iotune("bench", f"{name}.yaml", "--db", db, "--scratch", "scratch", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with Store(db) as store:
        trials = store.trials(study=name)
    return db, trials


@pytest.mark.slow
def test_bench_applies_every_hdf5_setting_and_hint_and_reads_each_back(tmp_path):
    _, trials = _bench(tmp_path, "h5", SPEC.replace("PAGE_OR_AGGR", "aggr"))
    space = Space.from_text(SPEC.replace("PAGE_OR_AGGR", "aggr").split("benchmark:")[0])
    assert len(trials) == 4 and all(t.state == "COMPLETE" for t in trials), [t.error for t in trials]
    checked = set()
    for trial in trials:
        for parameter in space.system_parameters:
            value = trial.config.get(parameter.name)
            key = read_back_key(parameter)
            assert trial.hints_in_effect[key] == asked_value(parameter, value), (parameter.name, trial.config)
            checked.add(parameter.name)
    assert sum(is_hdf5_parameter(space.parameter(name)) for name in checked) == 7


@pytest.mark.slow
def test_a_setting_hdf5_overrode_is_shown_as_it_ran(tmp_path):
    # under paged aggregation HDF5 aligns to its page size (4 KiB by default), not to the alignment asked
    spec = SPEC.replace("PAGE_OR_AGGR", "page").replace("levels: [fsm_aggr, page]", "levels: [page]") \
        .replace("levels: [1, 64KiB]", "levels: [64KiB]").replace("budget: 4", "budget: 1")
    db, trials = _bench(tmp_path, "paged", spec)
    assert [t.state for t in trials] == ["COMPLETE"]
    assert trials[0].hints_in_effect["hdf5.alignment"] != str(64 * 1024)
    shown = run_iotune("results", "--study", "paged", "--db", db, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "hdf5.alignment ran as" in shown.stdout
    assert "HDF5 settings from the file written" in shown.stderr


@pytest.mark.requires_h5py_mpi  # the module's marks; this case only takes h5py away from the command's Python
def test_bench_without_parallel_h5py_is_one_line_before_any_trial(tmp_path):
    # an h5py package that cannot be imported, first on the path: as on a machine where h5py is missing
    shadow = tmp_path / "shadow" / "h5py"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('no h5py here')\n")
    (tmp_path / "h5.yaml").write_text(SPEC.replace("PAGE_OR_AGGR", "aggr"))
    db = tmp_path / "s.db"
    done = run_iotune("bench", "h5.yaml", "--db", db, "--scratch", tmp_path, cwd=tmp_path,
                      env={"PYTHONPATH": str(tmp_path / "shadow")})
    assert done.returncode != 0
    assert "api HDF5 needs parallel h5py" in done.stderr and "scripts/install-hdf5" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not db.exists() or not Store(db).trials(study="h5")
