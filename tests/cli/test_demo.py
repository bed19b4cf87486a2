"""The demo, for real: screen, collect, train, recommend for the unseen workload, then measure it."""

import re

import pytest

from iotune.demo import TUNE_BUDGET
from iotune.store import Store
from tests.cli.conftest import run_iotune

pytestmark = [pytest.mark.requires_mpi, pytest.mark.slow]


def test_demo_recommends_for_an_unseen_workload_and_measures_it(workdir):
    result = run_iotune("demo", "--study", "d", "--repeats", "1", "--db", "s.db", "--scratch", "scratch",
                        cwd=workdir, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "which parameters matter" in result.stdout
    assert "fastest configuration per workload" in result.stdout
    assert "every configuration measured at the end" in result.stdout and "of 10" in result.stdout
    assert "What was tuned: ROMIO's collective-buffering hints" in result.stderr
    spent = re.search(r"The tuner spent (\d+) runs and picked", result.stderr)
    assert spent and int(spent.group(1)) <= TUNE_BUDGET and "Why: on this machine" in result.stderr
    with Store(workdir / "s.db") as store:
        names = {s.name for s in store.list_studies()}
        assert names == {"d", "d-screen", "d-heldout"}
        held_out = store.trials(study="d-heldout")
        collected = store.trials(study="d")
        assert len(held_out) == 10 and len(collected) == 23 + int(spent.group(1))
        tuned = sorted((t for t in collected if t.workload_key == held_out[0].workload_key), key=lambda t: t.seq)
        assert len(tuned) == int(spent.group(1)) and tuned[0].config["romio_cb_write"] == "automatic"  # default first
        assert len({t.workload_key for t in collected}) == 6
        assert [m.name for m in store.list_models("d")] == ["cart-time"]
    assert list((workdir / "scratch").iterdir()) == []
