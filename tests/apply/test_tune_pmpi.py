"""`iotune tune -- mpiexec ... APP` and `iotune run -- APP` measure the application's own I/O time from inside, with
iotune's PMPI library preloaded (issue 30): hints applied at open and none in the environment, start-up and
computation left out, and runs of another objective never compared with these."""

import json
import os
import sys
from pathlib import Path

import pytest

from iotune.apply.pmpi import PmpiUnavailable, library
from iotune.cli.app import main
from iotune.spec import CampaignSpec
from iotune.store import Store
from iotune.study import Study

KERNEL = Path(__file__).parents[1] / "apps" / "checkpoint_mpiio.py"
MPIEXEC = str(Path(sys.executable).parent / "mpiexec")
SPEC = """
name: ckpt
parameters:
  - {name: processes, type: integer, levels: [2], role: workload, layer: application}
  - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio}
  - {name: cb_buffer_size, type: size, levels: [64KiB, 1MiB, 16MiB], role: system, layer: mpiio}
benchmark: {api: MPIIO, block_size: 1MiB}
"""
SLEEP = 0.5
MEASURED = "I/O time measured inside the application by iotune's PMPI library"

pytestmark = pytest.mark.requires_mpi


@pytest.fixture(scope="session")
def pmpi_cache(tmp_path_factory):
    cache = tmp_path_factory.mktemp("pmpi-cache")
    try:
        library([MPIEXEC], {**os.environ, "IOTUNE_PMPI_CACHE": str(cache)})
    except PmpiUnavailable as exc:
        pytest.skip(f"the PMPI library cannot be built here: {exc}")
    return cache


@pytest.fixture
def study(tmp_path, monkeypatch, pmpi_cache):
    monkeypatch.setenv("IOTUNE_PMPI_CACHE", str(pmpi_cache))
    for name in [n for n in os.environ if n.startswith("IOR_HINT__") or n in ("ROMIO_HINTS", "MPICH_MPIIO_HINTS")]:
        monkeypatch.delenv(name)
    url = str(tmp_path / "iotune.db")
    with Store(url) as store:
        Study.create(store, "ckpt", CampaignSpec.from_text(SPEC))
    return url


def _command(tmp_path) -> list[str]:
    return [MPIEXEC, "-n", "2", sys.executable, str(KERNEL), str(tmp_path / "ck"), "--sleep", str(SLEEP),
            "--log", str(tmp_path / "kernel.jsonl")]


def _tune(tmp_path, capfd, url, budget, *options):
    code = main(["tune", "--study", "ckpt", "--db", url, "--budget", str(budget), "--format", "json",
                 "--scratch", str(tmp_path / "scratch"), *options, "--", *_command(tmp_path)])
    captured = capfd.readouterr()
    assert code == 0, captured.err
    with Store(url) as store:
        runs = sorted(store.trials(study="ckpt-runs"), key=lambda t: t.seq or 0)
    return json.loads(captured.out[captured.out.index("{"):]), runs, captured.err


def _check_pmpi_runs(runs, tmp_path):
    kernel = [json.loads(line) for line in (tmp_path / "kernel.jsonl").read_text().splitlines()]
    assert len(kernel) == len(runs)
    for trial, seen in zip(runs, kernel):
        pmpi = trial.extra["pmpi"]
        assert trial.state == "COMPLETE" and trial.extra["phase_seconds_source"] == "pmpi io time"
        assert trial.phases[0].seconds == pytest.approx(pmpi["io_seconds"])
        assert trial.phases[0].seconds < trial.wall_seconds - SLEEP  # start-up and the computation are left out
        assert trial.phases[0].bytes == pmpi["bytes_read"] + pmpi["bytes_written"] == \
            seen["bytes_written"] + seen["bytes_read"]
        assert pmpi["files"] == seen["files"]
        assert seen["env"] == {}  # hints applied at open by the library, none in the environment
        assert pmpi["asked"] == trial.hints_requested == {k: str(v) for k, v in trial.config.items()
                                                          if k != "processes"}
        for record in pmpi["file_records"]:
            assert {k: record["in_effect"][k] for k in pmpi["asked"]} == pmpi["asked"]
        assert {k: trial.hints_in_effect[k] for k in pmpi["asked"]} == pmpi["asked"]
        assert {k: seen["in_effect"][k] for k in pmpi["asked"]} == pmpi["asked"]


def test_tune_measures_the_applications_io_time_from_inside(tmp_path, capfd, study):
    summary, runs, err = _tune(tmp_path, capfd, study, 3)
    assert f"objective: {MEASURED}" in err and summary["measured"].startswith(MEASURED)
    assert "wall time, not its I/O" not in err
    assert len(runs) == summary["runs"] == 3
    _check_pmpi_runs(runs, tmp_path)
    assert summary["best"]["mean"] < SLEEP
    assert main(["results", "--db", study, "--study", "ckpt-runs"]) == 0
    assert "I/O time s (PMPI)" in capfd.readouterr().out


@pytest.mark.slow
def test_tune_with_a_budget_of_8_by_the_pmpi_io_time(tmp_path, capfd, study):
    summary, runs, err = _tune(tmp_path, capfd, study, 8)
    assert f"objective: {MEASURED}" in err
    assert len(runs) == summary["runs"] == 8
    _check_pmpi_runs(runs, tmp_path)
    means = {}
    for trial in runs:
        means.setdefault(trial.config_key, []).append(trial.phases[0].seconds)
    best_key = next(t.config_key for t in runs if t.config == summary["best"]["configuration"])
    race = summary["race"]
    if race["confirmed"]:  # the best's mean comes from its race (confirmation) runs only
        assert summary["best"]["runs"] <= race["rounds"] and summary["best"]["runs"] < len(means[best_key])
    else:
        assert summary["best"]["runs"] == len(means[best_key])
    # what it cannot tell from its pick: the pick first, then only configurations it measured
    tied, measured = summary["tied_with_best"], [step["configuration"] for step in summary["history"]]
    assert tied and tied[0] == summary["best"]["configuration"] and all(c in measured for c in tied)
    assert (len(tied) == 1) == summary["separated_from_runner_up"]
    _check_said_undecided(summary)


def _check_said_undecided(summary):
    """A race the budget ended undecided says so, and which budget would decide at the noise it measured."""
    race, notes = summary["race"], summary["notes"]
    undecided = [note for note in notes if note.startswith("undecided:")]
    if race["budget_to_decide"] is None:  # decided, or the default ahead beyond the noise
        assert not undecided and (race["decided"] or summary["best"]["configuration"] ==
                                  summary["default"]["configuration"])
    else:
        assert not race["decided"] and race["budget_to_decide"] == summary["runs"] + race["more_runs_to_decide"]
        assert len(undecided) == 1 and f"--budget {race['budget_to_decide']} continues this tuning" in undecided[0]


@pytest.mark.slow
def test_tune_without_a_budget_runs_on_to_what_a_decision_needs(tmp_path, capfd, study):
    code = main(["tune", "--study", "ckpt", "--db", study, "--format", "json", "--scratch", str(tmp_path / "scratch"),
                 "--", *_command(tmp_path)])
    captured = capfd.readouterr()
    assert code == 0, captured.err
    summary = json.loads(captured.out[captured.out.index("{"):])
    with Store(study) as store:
        runs = sorted(store.trials(study="ckpt-runs"), key=lambda t: t.seq or 0)
    _check_pmpi_runs(runs, tmp_path)
    assert "budget 8 runs, then on to a decision (at most 60" in captured.err
    assert 8 <= summary["runs"] == len(runs) <= 60
    continued = [line for line in captured.err.splitlines() if line.startswith("undecided after")]
    assert (summary["runs"] > 8) == bool(continued)  # continued only when the first 8 runs left it undecided
    beyond = [note for note in summary["notes"] if note.startswith("without --budget")]
    if beyond:  # stopped because a decision lies beyond 60 runs
        assert summary["race"]["budget_to_decide"] > 60 and str(summary["race"]["budget_to_decide"]) in beyond[0]
    else:
        assert summary["race"]["budget_to_decide"] is None
    _check_said_undecided(summary)


def test_runs_of_another_objective_are_never_compared(tmp_path, capfd, study):
    _, wall_runs, err = _tune(tmp_path, capfd, study, 2, "--wall-time")
    assert "objective: wall time" in err and all(t.extra["phase_seconds_source"] == "wall time" for t in wall_runs)
    summary, runs, err = _tune(tmp_path, capfd, study, 2)
    assert len(runs) == 4 and summary["runs"] == 2  # the wall-time runs are neither spent nor compared
    pmpi_values = sorted(t.phases[0].seconds for t in runs if t.extra["phase_seconds_source"] == "pmpi io time")
    assert sorted(step["value"] for step in summary["history"]) == pytest.approx(pmpi_values)
    assert summary["best"]["mean"] <= max(pmpi_values)
    again, runs, err = _tune(tmp_path, capfd, study, 2, "--wall-time")
    assert len(runs) == 4 and again["runs"] == 2 and "already spent" in err  # its own two, not the PMPI runs


def test_run_records_the_pmpi_io_time_and_chooses_only_from_runs_measured_alike(tmp_path, capfd, study):
    _tune(tmp_path, capfd, study, 2, "--wall-time")
    command = _command(tmp_path)
    assert main(["run", "--study", "ckpt", "--db", study, "--", *command]) == 0
    err = capfd.readouterr().err
    assert "the space's defaults" in err  # the wall-time runs do not choose for a PMPI-measured run
    with Store(study) as store:
        last = max(store.trials(study="ckpt-runs"), key=lambda t: t.id)
    assert last.extra["phase_seconds_source"] == "pmpi io time"
    assert f"I/O time {last.phases[0].seconds:.3f} s (PMPI" in err
    assert last.phases[0].seconds < last.wall_seconds - SLEEP


def test_wall_time_and_metric_stay_objectives_of_their_own(tmp_path, capfd, study):
    code = main(["tune", "--study", "ckpt", "--db", study, "--budget", "1", "--wall-time", "--metric", "x",
                 "--", *_command(tmp_path)])
    assert code == 2 and "--wall-time" in capfd.readouterr().err


def test_only_a_command_started_by_an_mpi_launcher_gets_the_library(study):
    from iotune.runners.command import CommandRunner

    assert CommandRunner([MPIEXEC, "-n", "2", "./app"]).measure == "pmpi io time"
    plain = CommandRunner(["sh", "-c", "true"])
    assert plain.pmpi is None and plain.wall_time and plain.measure == "wall time"
    assert CommandRunner([MPIEXEC, "./app"], wall_time=True).measure == "wall time"


def test_an_mpi_program_without_mpi_io_fails_its_run_saying_why(tmp_path, study):
    from iotune.apply.command import NO_IO
    from iotune.runners.command import CommandRunner
    from iotune.spec.mapping import benchmark_spec

    spec = CampaignSpec.from_text(SPEC)
    runner = CommandRunner([MPIEXEC, "-n", "2", sys.executable, "-c", "from mpi4py import MPI"])
    measurement = runner.run(benchmark_spec(spec.space, spec.space.configuration({}), spec.benchmark), tmp_path)
    assert measurement.status == "FAILED" and measurement.error == NO_IO
    assert measurement.extra["phase_seconds_source"] == "pmpi io time" and measurement.extra["pmpi"]["opens"] == 0


def test_without_a_compiler_an_mpi_command_is_timed_by_wall_time_saying_why(tmp_path, study):
    from iotune.runners.command import CommandRunner

    broken = tmp_path / "mpicc"
    broken.write_text("#!/bin/sh\necho 'cc: not found' >&2\nexit 127\n")
    broken.chmod(0o755)
    environ = {**os.environ, "IOTUNE_MPICC": str(broken), "IOTUNE_PMPI_CACHE": str(tmp_path / "cache")}
    runner = CommandRunner([MPIEXEC, "-n", "2", "./app"], environ=environ)
    assert runner.pmpi is None and runner.wall_time and runner.measure == "wall time"
    assert "cannot be built" in runner.pmpi_unavailable and "a C compiler (cc) is needed" in runner.pmpi_unavailable
