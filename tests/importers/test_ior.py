"""IOR's JSON output stored as trials, described as iotune describes its own runs."""

import json
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


def test_import_keeps_the_data_pattern_and_ior_bandwidth(tmp_path):
    data = json.loads((FIXTURES / "a_posix_fpp_1m.json").read_text())
    data["tests"][0]["Parameters"]["dataPacketType"] = 1  # IOR 4's -l offset: compressible, not iotune's offset
    data["Began"] = "another run"
    other = tmp_path / "a_offset.json"
    other.write_text(json.dumps(data))
    with Store(tmp_path / "db.sqlite") as store:
        import_ior(store, [FIXTURES / "a_posix_fpp_1m.json", other], "ior")
        space = Space.from_text(store.get_study("ior").space_yaml)
        assert space.parameter("data_pattern").levels == ("ior_offset", "timestamp")
        trials = store.trials(study="ior")
        assert {t.config["data_pattern"] for t in trials} == {"timestamp", "ior_offset"}
        assert len(best_per_workload(space, trials)) == 2  # two kinds of data are two workloads
        raw = json.loads((FIXTURES / "a_posix_fpp_1m.json").read_text())["tests"][0]["Results"]
        stored = [p for t in sorted(trials, key=lambda t: t.id)[:3] for p in t.phases]
        assert [p.bandwidth_mib for p in stored] == pytest.approx([r["bwMiB"] for r in raw], rel=1e-6)
        assert {t.read_cache_mode for t in trials} == {"page_cache"}


@pytest.mark.parametrize("change, words", [
    (lambda d: d["tests"][0]["Parameters"].update(transferSize=0), "transferSize must be a whole number from 1"),
    (lambda d: d["tests"][0]["Results"][0].update(totalTime=-1.0), "totalTime must be a finite number > 0"),
    (lambda d: d.update(summary=5), "'summary' must be a list"),
])
def test_import_checks_the_ior_output_before_storing_anything(tmp_path, change, words):
    """Issue 13, item 8: import-ior reads IOR output through its checks (iotune.importers.ior_checks)."""
    document = json.loads((FIXTURES / "a_posix_fpp_1m.json").read_text())
    change(document)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(IotuneError, match=words):
            import_ior(store, [path], "ior")
        assert store.get_study("ior") is None


def test_import_refuses_ior_output_that_is_not_utf8_or_nests_too_deeply(tmp_path):
    (tmp_path / "binary.json").write_bytes(b'{"tests": ["\xff"]}')
    (tmp_path / "deep.json").write_text('{"tests": ' + "[" * 100_000)
    with pytest.raises(IotuneError, match="not UTF-8"):
        read_ior_runs(tmp_path / "binary.json")
    with pytest.raises(IotuneError, match="too deeply|not valid JSON"):
        read_ior_runs(tmp_path / "deep.json")
