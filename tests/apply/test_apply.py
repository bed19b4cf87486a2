"""Applying a configuration, choosing it, and `iotune run` around a real MPI application."""

import json
import os
import sys
from pathlib import Path

import pytest

from iotune.apply import apply_configuration
from iotune.apply.choose import choose_configuration
from iotune.cli.app import main
from iotune.records import Measurement, PhaseResult
from iotune.space import Space
from iotune.store import Store
from iotune.stored import StoredStudy

APP = Path(__file__).parent / "app_checkpoint.py"
SPACE = """
name: runtest
parameters:
  - {name: processes, type: integer, levels: [2, 4], role: workload, layer: application}
  - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio}
  - {name: cb_buffer_size, type: size, levels: [16MiB, 1MiB], role: system, layer: mpiio}
  - {name: threads, type: integer, levels: [1, 2], role: system, layer: application, env: IOTUNE_TEST_THREADS}
"""
BEST = {"processes": 2, "romio_cb_write": "disable", "cb_buffer_size": 1 << 20, "threads": 2}
ALLOW = ["IOTUNE_TEST_THREADS"]  # not on the safe list: the user allows it, as --allow-env does


@pytest.fixture
def study(tmp_path):
    """A store with study 'runtest': three measured configurations, the fastest being BEST."""
    space = Space.from_text(SPACE)
    url = str(tmp_path / "iotune.db")
    with Store(url) as store:
        record = store.create_study("runtest", space.to_yaml(), space.hash, {})
        for values, seconds in ((BEST, 1.0), ({"processes": 2}, 3.0), ({**BEST, "romio_cb_write": "enable"}, 2.0)):
            config = space.configuration(values)
            trial = store.start_trial(record.id, config.to_dict(), config.key, config.workload_key, 0)
            store.finish_trial(trial, Measurement("COMPLETE", [PhaseResult("write", 1 << 20, seconds, 0, seconds, 0, 1)]))
    return url, space


def test_apply_writes_every_channel(tmp_path, study):
    _, space = study
    applied = apply_configuration(space, space.configuration(BEST), tmp_path, environ={}, lustre_dir="/lus/out",
                                  allow_env=ALLOW)
    assert Path(applied.env["ROMIO_HINTS"]).read_text() == "romio_cb_write disable\ncb_buffer_size 1048576\n"
    assert applied.env["MPICH_MPIIO_HINTS"] == "*:romio_cb_write=disable:cb_buffer_size=1048576"
    assert applied.env["IOR_HINT__MPI__cb_buffer_size"] == "1048576" and applied.env["IOTUNE_TEST_THREADS"] == "2"
    assert applied.kept == {} and applied.commands == []  # no striping hints, no lfs command


def test_user_settings_kept_unless_override(tmp_path, study):
    _, space = study
    user = tmp_path / "user.hints"
    user.write_text("romio_cb_write enable\ncb_nodes 1\n")
    environ = {"ROMIO_HINTS": str(user), "MPICH_MPIIO_HINTS": "*.h5:cb_buffer_size=4194304",
               "IOTUNE_TEST_THREADS": "8"}
    kept = apply_configuration(space, space.configuration(BEST), tmp_path, environ=environ, allow_env=ALLOW)
    assert kept.kept == {"romio_cb_write": "enable", "cb_buffer_size": "4194304", "IOTUNE_TEST_THREADS": "8"}
    assert kept.hints["romio_cb_write"] == "enable" and kept.hints["cb_nodes"] == "1"
    assert kept.env["MPICH_MPIIO_HINTS"] == "*.h5:cb_buffer_size=4194304"
    assert "IOTUNE_TEST_THREADS" not in kept.env
    forced = apply_configuration(space, space.configuration(BEST), tmp_path, environ=environ, override=True,
                                 allow_env=ALLOW)
    assert forced.kept == {} and forced.overridden["romio_cb_write"] == "enable"
    assert forced.hints["romio_cb_write"] == "disable" and forced.env["IOTUNE_TEST_THREADS"] == "2"
    assert forced.env["MPICH_MPIIO_HINTS"] == "*:romio_cb_write=disable:cb_buffer_size=1048576"


def test_lfs_setstripe_command(tmp_path):
    space = Space.from_text("name: s\nparameters:\n  - {name: striping_factor, type: integer, levels: [4], "
                            "role: system, layer: mpiio}\n")
    applied = apply_configuration(space, space.configuration({}), tmp_path, environ={}, lustre_dir="/lus/out")
    assert applied.commands == ["lfs setstripe -c 4 /lus/out"] and applied.ran == []


def test_choose_measured_default_and_explore(study):
    url, space = study
    with Store(url) as store:
        runtest = StoredStudy.open(store, "runtest")
        assert runtest.space == space
        assert choose_configuration(runtest, processes=2).configuration == BEST
        default = choose_configuration(runtest, processes=4)
        assert default.how == "default" and default.configuration["romio_cb_write"] == "automatic"
        explored = choose_configuration(runtest, processes=2, explore=1.0, seed=1)
        assert explored.how == "explore" and explored.configuration["processes"] == 2
        assert explored.configuration.key not in {t.config_key for t in store.trials(study="runtest")}


def _run(url, capfd, *args):
    code = main(["run", "--study", "runtest", "--db", url, "--allow-env", "IOTUNE_TEST_THREADS", *args])
    out = capfd.readouterr().out
    return code, json.loads(out.strip().splitlines()[-1]) if out.strip() else None


@pytest.mark.requires_mpi
def test_run_applies_best_configuration_and_records(tmp_path, study, capfd, monkeypatch):
    url, _ = study
    mpiexec = str(Path(sys.executable).parent / "mpiexec")
    command = ["--", mpiexec, "-n", "2", sys.executable, str(APP), str(tmp_path / "ck.dat")]
    for name in [n for n in os.environ if n.startswith("IOR_HINT__") or n in ("ROMIO_HINTS", "MPICH_MPIIO_HINTS")]:
        monkeypatch.delenv(name)
    code, hints = _run(url, capfd, *command)
    assert code == 0 and hints["romio_cb_write"] == "disable" and hints["cb_buffer_size"] == "1048576"
    code, _ = _run(url, capfd, *command, "3")
    assert code == 3
    user = tmp_path / "user.hints"
    user.write_text("romio_cb_write enable\n")
    monkeypatch.setenv("ROMIO_HINTS", str(user))
    code, hints = _run(url, capfd, *command)
    assert hints["romio_cb_write"] == "enable" and hints["cb_buffer_size"] == "1048576"
    code, hints = _run(url, capfd, "--override", *command)
    assert hints["romio_cb_write"] == "disable"
    with Store(url) as store:
        runs = store.trials(study="runtest-runs")
        assert all(t.runner != "command" for t in store.trials(study="runtest"))
    assert [t.state for t in runs] == ["COMPLETE", "FAILED", "COMPLETE", "COMPLETE"]
    assert runs[1].error == "exit status 3" and runs[0].phases[0].phase == "run" and runs[0].phases[0].seconds > 0
    assert all(t.config == BEST for t in runs)


def test_application_runs_teach_the_next_run(study):
    """Two configurations of the same command were run; the faster one wins over the benchmark's best."""
    from iotune.apply.run import runs_study

    url, space = study
    other = {**BEST, "romio_cb_write": "enable"}
    with Store(url) as store:
        runtest = StoredStudy.open(store, "runtest")
        runs = runs_study(runtest)
        for values, seconds in ((BEST, 9.0), (other, 5.0), (BEST, 8.0)):
            config = space.configuration(values)
            trial = store.start_trial(runs.id, config.to_dict(), config.key, config.workload_key,
                                      len(store.trials(study="runtest-runs")))
            store.finish_trial(trial, Measurement("COMPLETE", [PhaseResult("run", 0, seconds, 0, seconds, 0, 0)],
                                                  runner="command", command="mpiexec -n 2 ./app"))
        chosen = choose_configuration(runtest, processes=2, command="mpiexec -n 2 ./app")
        assert chosen.how == "runs" and chosen.configuration == other
        elsewhere = choose_configuration(runtest, processes=2, command="mpiexec -n 2 ./other")
        assert elsewhere.how == "measured" and elsewhere.configuration == BEST
