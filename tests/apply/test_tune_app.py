"""`iotune tune -- mpiexec ... app`: a real MPI application tuned within a budget of its own runs."""

import json
import os
import sys
from pathlib import Path

import pytest

from iotune.cli.app import main
from iotune.spec import CampaignSpec
from iotune.store import Store
from iotune.study import Study

APP = Path(__file__).parent / "app_checkpoint.py"
SPEC = """
name: apptune
parameters:
  - {name: processes, type: integer, levels: [2], role: workload, layer: application}
  - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio}
  - {name: cb_buffer_size, type: size, levels: [1MiB, 4MiB], role: system, layer: mpiio}
benchmark: {api: MPIIO, block_size: 1MiB}
"""

pytestmark = pytest.mark.requires_mpi


def test_tune_runs_the_application_with_each_configuration_and_records_the_best(tmp_path, capfd, monkeypatch):
    url = str(tmp_path / "iotune.db")
    with Store(url) as store:
        Study.create(store, "apptune", CampaignSpec.from_text(SPEC))
    for name in [n for n in os.environ if n.startswith("IOR_HINT__") or n in ("ROMIO_HINTS", "MPICH_MPIIO_HINTS")]:
        monkeypatch.delenv(name)
    log = tmp_path / "hints.jsonl"
    monkeypatch.setenv("APP_HINTS_LOG", str(log))
    mpiexec = str(Path(sys.executable).parent / "mpiexec")
    code = main(["tune", "--study", "apptune", "--db", url, "--budget", "4", "--format", "json",
                 "--scratch", str(tmp_path / "scratch"),
                 "--", mpiexec, "-n", "2", sys.executable, str(APP), str(tmp_path / "ck.dat")])
    captured = capfd.readouterr()
    out = captured.out
    assert code == 0, captured.err
    summary = json.loads(out[out.index("{"):])
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    with Store(url) as store:
        runs = sorted(store.trials(study="apptune-runs"), key=lambda t: t.seq or 0)
    assert len(runs) == len(seen) == summary["runs"] == 4
    assert all(t.state == "COMPLETE" and t.runner == "command" for t in runs)
    for trial, hints in zip(runs, seen):  # each run saw the hints it was given, in run order
        for name, value in trial.hints_requested.items():
            assert hints[name] == value, (trial.config, hints)
    assert runs[0].config["romio_cb_write"] == "automatic" and runs[0].config["cb_buffer_size"] == 1 << 20
    measured = {t.config_key: t.phases[0].seconds for t in runs}
    best = summary["best"]
    assert best is not None and best["configuration"] in [t.config for t in runs]
    assert best["mean"] == pytest.approx(min(measured.values()), rel=0.5)
    assert summary["apply"]["hints"] == {k: str(v) for k, v in best["configuration"].items() if k != "processes"}
