"""An application is tuned on its I/O when it says how long its I/O took, and warned about when only wall time is
known (issue 19, item 3: an mpi4py application that sleeps 1 s before a short write)."""

import json
import os
import re
import sys
from pathlib import Path

import pytest

from iotune.apply.launch import StartUp, empty_launch, empty_launches
from iotune.apply.metric import Metric
from iotune.cli.app import main
from iotune.cli.tune_cmd import start_up_noise
from iotune.errors import IotuneError
from iotune.spec import CampaignSpec
from iotune.store import Store
from iotune.study import Study

APP = Path(__file__).parent / "app_sleepy.py"
SPEC = """
name: sleepy
parameters:
  - {name: processes, type: integer, levels: [2], role: workload, layer: application}
  - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio}
benchmark: {api: MPIIO, block_size: 1MiB}
"""


def _tune(tmp_path, capfd, monkeypatch, *options):
    url = str(tmp_path / "iotune.db")
    with Store(url) as store:
        if store.get_study("sleepy") is None:
            Study.create(store, "sleepy", CampaignSpec.from_text(SPEC))
    for name in [n for n in os.environ if n.startswith("IOR_HINT__") or n in ("ROMIO_HINTS", "MPICH_MPIIO_HINTS")]:
        monkeypatch.delenv(name)
    mpiexec = str(Path(sys.executable).parent / "mpiexec")
    code = main(["tune", "--study", "sleepy", "--db", url, "--budget", "2", "--format", "json",
                 "--scratch", str(tmp_path / "scratch"), *options,
                 "--", mpiexec, "-n", "2", sys.executable, str(APP), str(tmp_path / "out.dat")])
    captured = capfd.readouterr()
    assert code == 0, captured.err
    with Store(url) as store:
        runs = sorted(store.trials(study="sleepy-runs"), key=lambda t: t.seq or 0)
    return json.loads(captured.out[captured.out.index("{"):]), runs, captured.err, url


@pytest.mark.requires_mpi
def test_a_metric_tunes_the_io_the_application_printed_not_its_sleep(tmp_path, capfd, monkeypatch):
    summary, runs, err, _ = _tune(tmp_path, capfd, monkeypatch, "--metric", r"write time: ([0-9.]+) s")
    printed = [float(x) for x in re.findall(r"write time: ([0-9.]+) s", err)]
    assert len(runs) == 2 and all(t.state == "COMPLETE" for t in runs)
    assert [t.phases[0].seconds for t in runs] == pytest.approx(printed)  # what the application said, in order
    for trial in runs:
        assert trial.extra["phase_seconds_source"] == "metric"
        assert trial.phases[0].seconds < trial.wall_seconds - 0.9  # the 1 s sleep is not in the objective
    assert "metric" in summary["measured"] and summary["best"]["mean"] < 0.9
    assert "wall time, not its I/O" not in err


@pytest.mark.requires_mpi
def test_a_maximized_bandwidth_metric_is_stored_as_its_inverse(tmp_path, capfd, monkeypatch):
    summary, runs, err, url = _tune(tmp_path, capfd, monkeypatch, "--metric", r"write bandwidth: ([0-9.]+) MiB/s",
                                  "--maximize")
    printed = [float(x) for x in re.findall(r"write bandwidth: ([0-9.]+) MiB/s", err)]
    assert [1 / t.phases[0].seconds for t in runs] == pytest.approx(printed)
    assert all(t.extra["metric"]["direction"] == "maximized" for t in runs)
    assert main(["results", "--db", url, "--study", "sleepy-runs"]) == 0
    assert "1/metric (the metric is maximized)" in capfd.readouterr().out


@pytest.mark.requires_mpi
def test_with_wall_time_the_wall_time_is_said_and_labelled(tmp_path, capfd, monkeypatch):
    summary, runs, err, url = _tune(tmp_path, capfd, monkeypatch, "--wall-time")
    assert "objective is the application's wall time, not its I/O time" in err and "--metric" in err
    assert "start-up" in err and summary["start_up_s"] and len(summary["start_up_s"]) == 5
    assert all(t.extra["phase_seconds_source"] == "wall time" for t in runs)
    assert all(t.phases[0].seconds == pytest.approx(t.wall_seconds) for t in runs)
    assert summary["measured"].startswith("wall time")
    assert main(["results", "--db", url, "--study", "sleepy-runs"]) == 0
    shown = capfd.readouterr()
    assert "wall time" in shown.out and "I/O time" not in shown.out
    noise = StartUp((), tuple(summary["start_up_s"])).noise
    assert f"start-up alone can put two runs up to {noise:.3f} s apart" in shown.err


def test_no_gain_is_declared_within_start_up_noise():
    from types import SimpleNamespace as Fake

    def estimate(mean, key):
        return Fake(mean=mean, configuration=Fake(key=key))

    result = Fake(gain=1.27, best=estimate(1.30, "b"), default=estimate(1.65, "d"))
    noisy = StartUp(("mpiexec", "-n", "2", "python", "-c", "pass"), (1.0, 1.4, 1.1, 1.2, 1.3))
    # sd 0.158 s over 5 launches: t(0.975, 4) x sqrt(2) x 0.158 = 0.621 s > 0.350 s apart
    assert noisy.noise == pytest.approx(2.7764 * 2 ** 0.5 * 0.158114, rel=1e-3)
    assert "no gain declared" in start_up_noise(result, noisy) and "0.350 s" in start_up_noise(result, noisy)
    calm = StartUp(noisy.command, (1.0, 1.02, 1.01, 1.0, 1.01))
    assert start_up_noise(result, calm) is None
    assert start_up_noise(result, None) is None
    itself = Fake(gain=1.0, best=estimate(1.30, "d"), default=estimate(1.30, "d"))
    assert start_up_noise(itself, noisy) is None  # the default is best: there is no gain to withhold


def test_empty_launch_keeps_the_launcher_and_the_interpreter():
    assert empty_launch(["mpiexec", "-n", "2", "python3", "app.py", "-n", "5"]) == \
        ["mpiexec", "-n", "2", "python3", "-c", "pass"]
    assert empty_launch(["srun", "--ntasks=4", "-p", "debug", "./app"]) == ["srun", "--ntasks=4", "-p", "debug", "true"]
    assert empty_launch(["mpiexec", "-genv", "A", "1", "-n", "2", "./app"]) == \
        ["mpiexec", "-genv", "A", "1", "-n", "2", "true"]
    assert empty_launch(["./app", "x"]) == ["true"]
    assert empty_launches(["mpiexec", "-n", "2", "python3", "app.py"]) == [
        ["mpiexec", "-n", "2", "python3", "-c", "from mpi4py import MPI"],
        ["mpiexec", "-n", "2", "python3", "-c", "pass"]]
    assert empty_launches(["python3", "app.py"]) == [["python3", "-c", "pass"]]


def test_metric_syntax_and_values():
    metric = Metric.parse(r"Max Write: *([0-9.]+) MiB/sec", maximize=True)
    assert metric.find("Max Write: 10.5 MiB/sec\nMax Write: 200.25 MiB/sec\n") == 200.25  # the last match
    assert metric.seconds(200.0) == pytest.approx(0.005)
    with pytest.raises(IotuneError, match="no line"):
        metric.find("nothing here")
    with pytest.raises(IotuneError, match="not a regular expression"):
        Metric.parse("([0-9")
    with pytest.raises(IotuneError, match="2 groups"):
        Metric.parse("(a)(b)")
    with pytest.raises(IotuneError, match="not a number"):
        Metric.parse("took (.*) s").find("took lots s")


COPY_LOG = """
import os, shutil, sys
shutil.copy(sys.argv[1], os.path.join(os.environ["DARSHAN_LOGPATH"], "app.darshan"))
"""


def test_a_preloaded_darshan_gets_a_log_directory_of_its_own_and_its_io_time_is_the_objective(tmp_path):
    """darshan-runtime is not installable here (neither apt nor PyPI has it): the "application" stands in for it by
    leaving a real Darshan log where the runtime would, in the DARSHAN_LOGPATH iotune chose for the run."""
    from iotune.apply.command import execute
    from iotune.profile import from_darshan

    fixture = Path(__file__).parents[1] / "profile" / "fixtures" / "ior-posix-16procs.darshan"
    library = tmp_path / "libdarshan.so"
    library.write_bytes(b"")  # never loaded: the loader ignores a preload it cannot map, with a message
    app = tmp_path / "app.py"
    app.write_text(COPY_LOG)
    environ = {k: v for k, v in os.environ.items() if not k.startswith("DARSHAN_")}
    environ["LD_PRELOAD"] = str(library)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    execution = execute([sys.executable, str(app), str(fixture)], {}, {}, environ=environ, log_dir=scratch)
    assert execution.returncode == 0 and execution.source == "darshan io time"
    assert list(scratch.iterdir()) == []  # the log directory was in the scratch, and is gone
    assert execution.io_seconds == pytest.approx(from_darshan(fixture).io_seconds)
    measurement = execution.measurement(["app"])
    assert measurement.phases[0].seconds == pytest.approx(execution.io_seconds) != execution.wall_seconds
    assert execution.darshan_log is None  # the run's log directory is gone with the run


def test_darshan_library_that_is_not_there_is_an_error(tmp_path, capsys):
    code = main(["tune", "--study", "x", "--db", str(tmp_path / "no.db"), "--budget", "1",
                 "--darshan", str(tmp_path / "libdarshan.so"), "--", "true"])
    assert code == 2 and "no such file" in capsys.readouterr().err
    assert not (tmp_path / "no.db").exists()


@pytest.mark.requires_mpi
def test_run_records_the_metric_and_compares_only_runs_measured_alike(tmp_path, capfd, monkeypatch):
    summary, runs, err, url = _tune(tmp_path, capfd, monkeypatch, "--wall-time")  # two wall-time runs
    mpiexec = str(Path(sys.executable).parent / "mpiexec")
    command = [mpiexec, "-n", "2", sys.executable, str(APP), str(tmp_path / "out.dat")]
    assert main(["run", "--study", "sleepy", "--db", url, "--metric", r"write time: ([0-9.]+) s", "--", *command]) == 0
    captured = capfd.readouterr()
    printed = float(re.findall(r"write time: ([0-9.]+) s", captured.out + captured.err)[-1])
    assert "the space's defaults" in captured.err  # the wall-time runs do not choose for a metric
    assert f"metric {printed:g} (minimized)" in captured.err
    with Store(url) as store:
        last = max(store.trials(study="sleepy-runs"), key=lambda t: t.id)
    assert last.extra["phase_seconds_source"] == "metric" and last.phases[0].seconds == pytest.approx(printed)
    assert main(["run", "--study", "sleepy", "--db", url, "--wall-time", "--", *command]) == 0
    assert "mean wall time" in capfd.readouterr().err  # the wall-time runs choose for a wall-time run


@pytest.mark.requires_mpi
def test_a_metric_tuning_never_counts_the_wall_time_runs_already_in_the_study(tmp_path, capfd, monkeypatch):
    """Issue 29, item 5: a study holding wall-time runs of the application, tuned by its printed metric, compares
    metric runs only: the budget is spent on runs of that metric, and no wall time enters the gain."""
    _tune(tmp_path, capfd, monkeypatch, "--wall-time")  # two wall-time runs in sleepy-runs
    summary, runs, err, _ = _tune(tmp_path, capfd, monkeypatch, "--metric", r"write time: ([0-9.]+) s")
    metric_runs = [t for t in runs if t.extra["phase_seconds_source"] == "metric"]
    assert len(metric_runs) == 2 and len(runs) == 4  # its budget of 2 spent on metric runs, beside the 2 wall ones
    assert summary["runs"] == 2
    assert summary["best"]["mean"] < 0.9 and (summary["default"] is None or summary["default"]["mean"] < 0.9)

