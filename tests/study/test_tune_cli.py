"""``iotune tune`` from the command line: the replay runner here, and the Slurm options refused in one line
where they cannot work (the Slurm runs themselves are in test_slurm_tune.py)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GROUND_TRUTH = ROOT / "data" / "ground_truth"
WORKLOAD = "api=MPIIO,collective=true,file_per_process=false,transfer_size=256KiB"


def tune(tmp_path, *args, env=None):
    return subprocess.run([sys.executable, "-m", "iotune", "tune", *map(str, args)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "IOTUNE_PLAIN": "1", **(env or {})})


@pytest.mark.slow
def test_a_local_tuning_replays_a_table_and_reports_its_best(tmp_path):
    done = tune(tmp_path, GROUND_TRUTH / "testbed_ground_truth.yaml", "--budget", "4", "--workload", WORKLOAD,
                "--runner", f"replay:{GROUND_TRUTH / 'testbed_ground_truth.csv'}", "--replay-scale", "0",
                "--db", tmp_path / "t.db", "--format", "json")
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert summary["runs"] == 4 and len(summary["history"]) == 4
    values = [step["value"] for step in summary["history"]]
    assert summary["best"]["mean"] == min(values)


@pytest.mark.slow
def test_slurm_options_that_cannot_work_are_one_clear_line(tmp_path):
    spec = GROUND_TRUTH / "testbed_ground_truth.yaml"
    common = ("--budget", "3", "--workload", WORKLOAD)
    local = tune(tmp_path, spec, *common, "--workers", "3", "--db", tmp_path / "t.db")
    assert local.returncode == 2 and "--workers only apply with --executor slurm" in local.stderr
    sqlite = tune(tmp_path, spec, *common, "--executor", "slurm", "--workers", "3", "--db", tmp_path / "t.db")
    assert sqlite.returncode == 2 and "PostgreSQL" in sqlite.stderr and "Traceback" not in sqlite.stderr
    command = tune(tmp_path, "--study", "s", *common, "--executor", "slurm", "--db", tmp_path / "t.db", "--",
                   "./app", "--input", "x")
    assert command.returncode == 2 and "an application given after -- runs here" in command.stderr
    unbudgeted = tune(tmp_path, spec, "--workload", WORKLOAD, "--executor", "slurm", "--workers", "2", "--db",
                      "postgresql://nobody@localhost/none")
    assert unbudgeted.returncode == 2 and "--executor slurm needs --budget" in unbudgeted.stderr
    assert "Traceback" not in unbudgeted.stderr
    assert not (tmp_path / "t.db").exists()


PRICING = """default_instance_type: cc2.8xlarge
instance_types:
  cc2.8xlarge: {price_per_hour: 0.0, cores: 16}
device_classes:
  slow: {write_mbps: 33, read_mbps: 33, size_gb: 50, price_gb_hour: 0.00017, price_mbps_hour: 0.0006}
  fast: {write_mbps: 128, read_mbps: 128, size_gb: 50, price_gb_hour: 0.00017, price_mbps_hour: 0.02}
"""


def test_tuning_by_cost_prices_runs_exactly_and_ends_with_the_time_cost_front(tmp_path):
    (tmp_path / "p.yaml").write_text(PRICING)
    args = (GROUND_TRUTH / "testbed_ground_truth.yaml", "--budget", "6", "--workload", WORKLOAD, "--objective",
            "cost", "--pricing", "p.yaml", "--instances", "1",
            "--runner", f"replay:{GROUND_TRUTH / 'testbed_ground_truth.csv'}", "--replay-scale", "0",
            "--db", tmp_path / "t.db")
    done = tune(tmp_path, *args, "--format", "json")
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    front = summary["front"]
    assert front, "a cost tuning ends with its time-cost front"
    # fastest first, each point cheaper than the one before, and the cheapest is the declared best
    assert [p["time"] for p in front] == sorted(p["time"] for p in front)
    assert all(b["cost"] < a["cost"] for a, b in zip(front, front[1:]))
    assert front[-1]["cost"] == pytest.approx(summary["best"]["mean"])
    # the fast class costs ~3x the slow one per hour here: it is on the front only when it is that much faster
    slow = [p for p in front if p["configuration"]["device_class"] == "slow"]
    assert slow, "the cheap slow device is the cheapest or on the front"
    # no measured configuration is both faster and cheaper than a front point
    measured = [s for s in summary["history"] if s["value"] is not None]
    assert len(measured) >= len(front)
    text = tune(tmp_path, *args)
    assert text.returncode == 0, text.stderr[-2000:]
    assert "time-cost front" in text.stderr and "<- cheapest" in text.stderr


def test_no_baseline_skips_the_default_and_says_why_no_gain_is_stated(tmp_path):
    done = tune(tmp_path, GROUND_TRUTH / "testbed_ground_truth.yaml", "--budget", "2", "--workload", WORKLOAD,
                "--runner", f"replay:{GROUND_TRUTH / 'testbed_ground_truth.csv'}", "--replay-scale", "0",
                "--db", tmp_path / "t.db", "--format", "json", "--no-baseline")
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert summary["runs"] == 2 and summary["default"] is None and summary["gain_vs_default"] is None
    assert "--no-baseline" in summary["no_gain_because"] and summary["no_gain_because"] in summary["notes"]
