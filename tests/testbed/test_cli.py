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


def test_status_lists_the_throttled_devices_only(tmp_path):
    """Issue 32, item 7: the CephFS monitor's own loop device (unthrottled) was listed among the throttled ones.
    A recorded state (nothing built: status only reads it) with a monitor's device and two OSDs'."""
    from iotune.testbed import StorageConfig, state, support_problem

    if support_problem():
        pytest.skip(f"requires_root: {support_problem()}")
    directory = tmp_path / "testbeds" / "tb-ceph"
    directory.mkdir(parents=True)
    config = StorageConfig(fs="cephfs", devices=2, write_mbps=20, size_mib=1024).to_dict()
    record = state.new_state("tb-ceph", directory, config, None)
    record["loops"] = [{"device": "/dev/loop-mon", "role": "mon"}, {"device": "/dev/loop-osd0", "role": "osd"},
                       {"device": "/dev/loop-osd1", "role": "osd"}]
    state.save(record)
    status = run_cli("testbed", "status", "--format", "csv", "--dir", tmp_path / "testbeds")
    assert status.returncode == 0, status.stderr
    assert "/dev/loop-osd0,/dev/loop-osd1" in status.stdout and "loop-mon" not in status.stdout
