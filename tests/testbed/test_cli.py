"""``iotune testbed`` build, status, teardown and bench, as a user runs them."""

import sqlite3
import textwrap

import pytest

from .conftest import leftovers, run_cli

pytestmark = pytest.mark.requires_root

SPEC = textwrap.dedent("""\
    name: tb
    parameters:
      - {name: transfer_size, type: size, levels: [1MiB], role: workload, layer: application}
    benchmark: {api: POSIX, processes: 2, block_size: 8MiB, file_per_process: true, fsync: true, operation: write}
    campaign: {repeats: 1}
""")


def test_cli_build_status_teardown(testbed_root):
    built = run_cli("testbed", "build", "--fs", "ext4", "--scheduler", "mq-deadline", "--write-mbps", "33",
                    "--dir", testbed_root)
    assert built.returncode == 0, built.stderr
    mountpoint = built.stdout.strip()
    assert mountpoint.startswith(str(testbed_root)) and "iotune testbed teardown" in built.stderr
    status = run_cli("testbed", "status", "--format", "csv", "--dir", testbed_root)
    assert "persistent" in status.stdout and "write_mbps=33" in status.stdout
    assert "nothing to clean up" in run_cli("testbed", "cleanup", "--dir", testbed_root).stderr
    down = run_cli("testbed", "teardown", "--dir", testbed_root)
    assert down.returncode == 0 and "torn down" in down.stderr
    assert leftovers(testbed_root) == []


@pytest.mark.requires_mpi
@pytest.mark.slow
def test_bench_on_a_testbed_records_throttled_trials_and_tears_down(testbed_root, tmp_path):
    (tmp_path / "tb.yaml").write_text(SPEC)
    database = tmp_path / "tb.db"
    result = run_cli("testbed", "bench", tmp_path / "tb.yaml", "--write-mbps", "32", "--dir", testbed_root,
                     "--db", database)
    assert result.returncode == 0, result.stderr
    assert "1 trials completed, 0 failed" in result.stderr
    with sqlite3.connect(database) as connection:
        assert connection.execute("select count(*) from trials").fetchone()[0] == 1
    assert leftovers(testbed_root) == [] and list(testbed_root.iterdir()) == []
