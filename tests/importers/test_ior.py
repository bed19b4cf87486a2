"""IOR's JSON output stored as trials, described as iotune describes its own runs."""

from pathlib import Path

import pytest

from iotune.analysis import best_per_workload
from iotune.bench.runner import ior_command_line
from iotune.errors import IotuneError
from iotune.importers.ior import UNSET, import_ior, read_ior_runs
from iotune.space import Space
from iotune.store import Store

FIXTURES = Path(__file__).parents[1] / "bench" / "fixtures" / "ior"
README_OPTIONS = {
    "a_posix_fpp_1m": "-a POSIX -F -w -r -e -t 1m -b 64m",
    "b_mpiio_shared_coll_4m": "-a MPIIO -c -w -r -e -t 4m -b 64m",
    "c_mpiio_shared_coll_4m_cbw_disable_env": "-a MPIIO -c -w -r -e -t 4m -b 64m",
    "d_mpiio_shared_indep_4k": "-a MPIIO -w -r -e -t 4k -b 64m",
}


@pytest.mark.parametrize("name", sorted(README_OPTIONS))
def test_iotune_describes_the_ior_workload_with_the_same_options(name):
    (run,) = read_ior_runs(FIXTURES / f"{name}.json")
    described = ior_command_line(run.spec)
    for option in README_OPTIONS[name].split(" -"):
        assert f"-{option.lstrip('-')}" in described, (option, described)
    assert len(run.measurements) == 3


def test_hints_come_from_the_log_beside_the_json():
    (run,) = read_ior_runs(FIXTURES / "c_mpiio_shared_coll_4m_cbw_disable_env.json")
    assert run.hints == {"romio_cb_write": "disable"}
    assert all(m.hints_in_effect["romio_cb_write"] == "disable" for m in run.measurements)
    (default,) = read_ior_runs(FIXTURES / "b_mpiio_shared_coll_4m.json")
    assert default.hints == {} and default.measurements[0].hints_in_effect["romio_cb_write"] == "automatic"


def test_import_stores_every_repetition_once(tmp_path):
    files = sorted(FIXTURES.glob("*.json"))
    with Store(tmp_path / "db.sqlite") as store:
        report = import_ior(store, files, "ior")
        assert (report.runs, report.trials_added, report.trials_duplicate) == (4, 12, 0)
        assert import_ior(store, files, "ior").trials_added == 0
        trials = store.trials(study="ior")
        assert len(trials) == 12 and {t.state for t in trials} == {"COMPLETE"}
        for trial in trials:
            write = trial.phases[0]
            assert write.phase == "write" and write.bytes == 128 * 2**20
            assert trial.runner == "ior" and trial.command.startswith("ior ")
        space = Space.from_text(store.get_study("ior").space_yaml)
        assert space.parameter("romio_cb_write").levels == (UNSET, "disable")
        bests = best_per_workload(space, trials)
        assert len(bests) == 3  # b and c are one workload under two hint settings
        shared_collective = next(b for b in bests if b.configurations == 2)
        assert shared_collective.default is not None

        with pytest.raises(IotuneError, match="new --study"):
            import_ior(store, files[:1], "ior")
