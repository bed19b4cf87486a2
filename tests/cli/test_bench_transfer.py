"""``iotune bench --sampler transfer``: the tuner of ``iotune tune`` as one more sampler of the campaign loop, with
the testbed ground truth replayed (a stand-in for the storage): the same runs as ``iotune tune``, why each was
chosen kept, the budget spent once on resuming, and one clear line for what it cannot do."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from iotune.store import Store

ROOT = Path(__file__).resolve().parents[2]
GROUND_TRUTH = ROOT / "data" / "ground_truth"
SPEC = GROUND_TRUTH / "testbed_ground_truth.yaml"
REPLAY = ("--runner", f"replay:{GROUND_TRUTH / 'testbed_ground_truth.csv'}", "--replay-scale", "0")
WORKLOAD = "api=MPIIO,collective=true,file_per_process=false,transfer_size=256KiB"


def iotune(tmp_path, *args):
    return subprocess.run([sys.executable, "-m", "iotune", *map(str, args)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "IOTUNE_PLAIN": "1"})


def runs(db, study):
    with Store(db) as store:
        trials = sorted(store.trials(study=study), key=lambda t: t.seq)
        settings = store.get_study(study).settings
    return trials, settings


def test_what_the_transfer_sampler_cannot_do_is_one_clear_line(tmp_path):
    db = tmp_path / "t.db"
    cases = [
        (("--sampler", "transfer", "--budget", "3", *REPLAY), "give the workload's api"),
        (("--sampler", "transfer", "--workload", WORKLOAD, *REPLAY), "--sampler transfer needs --budget"),
        (("--workload", WORKLOAD, "--budget", "3", *REPLAY), "add --sampler transfer"),
        (("--sampler", "transfer", "--budget", "3", "--workload", WORKLOAD, "--prior-study", "nowhere", *REPLAY),
         "no study named 'nowhere'"),
    ]
    for args, message in cases:
        done = iotune(tmp_path, "bench", SPEC, "--db", db, *args)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr[-1500:])
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.slow
def test_bench_with_the_transfer_sampler_runs_what_tune_runs_and_resumes_spending_its_budget_once(tmp_path):
    bench = iotune(tmp_path, "bench", SPEC, "--db", tmp_path / "b.db", "--sampler", "transfer", "--budget", "5",
                   "--workload", WORKLOAD, *REPLAY)
    assert bench.returncode == 0, bench.stderr[-2000:]
    tune = iotune(tmp_path, "tune", SPEC, "--db", tmp_path / "t.db", "--budget", "5", "--workload", WORKLOAD,
                  *REPLAY, "--format", "json")
    assert tune.returncode == 0, tune.stderr[-2000:]
    benched, settings = runs(tmp_path / "b.db", "testbed-ground-truth")
    tuned, _ = runs(tmp_path / "t.db", "testbed-ground-truth")
    assert len(benched) == 5 and {t.state for t in benched} == {"COMPLETE"}
    assert [(t.config_key, t.repeat) for t in benched] == [(t.config_key, t.repeat) for t in tuned]
    history = json.loads(tune.stdout)["history"]
    assert [s["configuration"] for s in history] == [t.config for t in benched]
    reasons = settings["tuning_reasons"]
    assert [reasons[f"{t.config_key}#{t.repeat}"] for t in benched] == [s["reason"] for s in history]
    assert reasons[f"{benched[0].config_key}#0"].startswith("the default configuration")

    more = iotune(tmp_path, "bench", SPEC, "--db", tmp_path / "b.db", "--sampler", "transfer", "--budget", "7",
                  "--workload", WORKLOAD, "--resume", *REPLAY)
    assert more.returncode == 0, more.stderr[-2000:]
    resumed, _ = runs(tmp_path / "b.db", "testbed-ground-truth")
    assert len(resumed) == 7 and resumed[:5] == benched  # two more runs: the five are not run again
