"""Issue 32, item 4: a PostgreSQL password is never printed, by any command, on any line (stdout or stderr)."""

import json
from pathlib import Path

import pytest

from tests.cli.conftest import run_iotune

ROOT = Path(__file__).resolve().parents[2]
GROUND_TRUTH = ROOT / "data" / "ground_truth"
SPEC = GROUND_TRUTH / "testbed_ground_truth.yaml"
REPLAY = ("--runner", f"replay:{GROUND_TRUTH / 'testbed_ground_truth.csv'}", "--replay-scale", "0")
WORKLOAD = "api=MPIIO,collective=true,file_per_process=false,transfer_size=256KiB"
PASSWORD = "Pa55-w0rd-never-shown"


@pytest.mark.slow
@pytest.mark.requires_postgres
def test_no_command_prints_the_store_password(new_postgres_database, tmp_path):
    url = new_postgres_database(password=PASSWORD)
    assert PASSWORD in url
    commands = [
        ("tune", SPEC, "--budget", "3", "--workload", WORKLOAD, "--study", "t", *REPLAY),
        ("bench", SPEC, "--budget", "2", "--sampler", "random", "--study", "b", *REPLAY),
        ("bench", SPEC, "--budget", "2", "--sampler", "random", "--study", "b", *REPLAY),  # exists: refused
        ("studies",),
        ("studies", "--format", "json"),
        ("results",),
        ("results", "--study", "t", "--trials", "--format", "json"),
        ("results", "--study", "nope"),
        ("status", "--study", "t"),
        ("export", "-", "--format", "json"),
        ("export", tmp_path / "e.json", "--study", "nope"),
        ("recommend", "-s", "t", "--workload", WORKLOAD, "--format", "json"),
        ("study", "history", "nope"),
        ("report", "--study", "t", "-o", tmp_path / "r.html"),
    ]
    shown = 0
    for command in commands:
        done = run_iotune(*command, "--db", url, cwd=tmp_path)
        for line in (done.stdout + done.stderr).splitlines():
            assert PASSWORD not in line, f"{command[0]}: {line}"
        shown += "***" in done.stdout + done.stderr
    export = run_iotune("export", "-", "--format", "json", "--db", url, cwd=tmp_path)
    assert export.returncode == 0, export.stderr
    assert json.loads(export.stdout)["studies"]
    assert shown >= 3  # the URL is shown (masked) where the user needs it: bench's first line, errors
    assert PASSWORD not in (tmp_path / "r.html").read_text()
