"""Issue 12, item 6: `iotune run` names the studies when none or an unknown one is given, and warns without a
workload that the best configuration of another workload may be applied."""

import sys

import pytest

from iotune.cli.app import main
from iotune.store import Store
from tests.learn import synthetic


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.setenv("IOTUNE_PLAIN", "1")
    monkeypatch.delenv("IOTUNE_DB", raising=False)
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "s.db"
    with Store(path) as store:
        synthetic.build_study(store, repeats=1)
    return str(path)


@pytest.mark.parametrize("study", [[], ["--study", "nosuch"]])
def test_missing_or_unknown_study_lists_the_studies(db, capsys, study):
    assert main(["run", "--db", db, *study, "--", sys.executable, "-c", "pass"]) == 2
    (line,) = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert line.startswith("error: ") and "studies in" in line and "synth" in line


def test_no_workload_warns_that_another_workloads_best_may_be_applied(db, capsys):
    assert main(["run", "--db", db, "--study", "synth", "--", sys.executable, "-c", "pass"]) == 0
    err = capsys.readouterr().err
    assert "warning: no --workload" in err and "transfer_size" in err
    assert main(["run", "--db", db, "--study", "synth", "-w", "transfer_size=64KiB", "--", sys.executable, "-c",
                 "pass"]) == 0
    assert "no --workload" not in capsys.readouterr().err
