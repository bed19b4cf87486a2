"""The ground truths of data/ground_truth/ load into a store with one command each (issue 33)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from iotune.store import Store

GROUND_TRUTH = Path(__file__).resolve().parents[2] / "data" / "ground_truth"
TABLE = GROUND_TRUTH / "striping_ground_truth.csv"
ENV = {**os.environ, "IOTUNE_PLAIN": "1"}
PATTERNS = ("contiguous-collective", "fpp-independent", "strided-collective", "strided-independent")


def iotune(*args):
    return subprocess.run([sys.executable, "-m", "iotune", *args], env=ENV, capture_output=True, text=True,
                          timeout=300)


def test_the_striping_table_imports_as_one_study_per_pattern_and_only_once(tmp_path):
    db = tmp_path / "gt.db"
    done = iotune("import", str(TABLE), "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert "560 trials added" in done.stdout + done.stderr
    with Store(str(db), create=False) as store:
        names = sorted(s.name for s in store.list_studies())
        assert names == [f"striping-{p}" for p in PATTERNS]
        trials = store.trials(study="striping-strided-independent", state="COMPLETE")
        assert len(trials) == 70  # 2 process counts x 7 layouts x 5 repeats
        one = next(t for t in trials if t.config["processes"] == 4 and t.config["stripe_count"] == 3
                   and t.config.get("stripe_unit") == 65536 and t.repeat == 0)
        write = one.phases[0]
        assert (write.phase, write.bytes) == ("write", 16 * 2**20)
        assert one.extra["layout_in_effect"] == {"stripe_count": "3", "stripe_unit": "65536", "object_size": "33554432"}
        collective = store.trials(study="striping-contiguous-collective", state="COMPLETE")
        assert len(collective) == 210 and {t.hints_in_effect.get("cb_nodes") for t in collective} >= {"1", "2"}
    again = iotune("import", str(TABLE), "--db", str(db))
    assert again.returncode == 0 and "0 trials added, 560 already there" in again.stdout + again.stderr


def test_a_bad_row_stops_the_import_and_keeps_nothing(tmp_path):
    copy = tmp_path / "striping_ground_truth.csv"
    lines = TABLE.read_text().splitlines()
    fields = lines[300].split(",")
    fields[-1] = "-1.5"
    lines[300] = ",".join(fields)
    copy.write_text("\n".join(lines) + "\n")
    shutil.copytree(GROUND_TRUTH / "striping", tmp_path / "striping")
    db = tmp_path / "gt.db"
    done = iotune("import", str(copy), "--db", str(db))
    assert done.returncode != 0
    assert done.stderr.strip().count("\n") == 0 and "line 301: seconds" in done.stderr
    with Store(str(db)) as store:
        assert store.list_studies() == []


def test_the_striping_table_needs_its_specs(tmp_path):
    copy = tmp_path / "striping_ground_truth.csv"
    shutil.copy(TABLE, copy)
    done = iotune("import", str(copy), "--db", str(tmp_path / "gt.db"))
    assert done.returncode != 0 and "no spec" in done.stderr and "\n" not in done.stderr.strip()


@pytest.mark.slow
def test_compact_ground_truths_find_their_spec_beside_them(tmp_path):
    db = tmp_path / "gt.db"
    done = iotune("import", str(GROUND_TRUTH / "testbed_ground_truth.csv"), "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert "testbed_ground_truth.yaml" in done.stderr
    with Store(str(db), create=False) as store:
        assert [s.name for s in store.list_studies()] == ["testbed-ground-truth"]
        assert len(store.trials(study="testbed-ground-truth")) == 1080


def test_an_imported_pattern_is_a_prior_for_the_transfer_tuner(tmp_path):
    from iotune.spec import load_spec
    from iotune.study import Study
    from iotune.study.objective import Objective
    from iotune.study.tune import prior_outcomes

    db = tmp_path / "gt.db"
    assert iotune("import", str(TABLE), "--db", str(db)).returncode == 0
    space = load_spec(GROUND_TRUTH / "striping" / "strided-collective.yaml").space
    with Store(str(db), create=False) as store:
        prior = prior_outcomes([Study.open(store, "striping-strided-collective")], space, Objective("time"))
    # 2 process counts x 7 layouts x 3 collective-buffering settings, each the mean of its 5 runs
    assert len(prior) == 42
    assert all(outcome.value > 0 for _, outcome in prior)
