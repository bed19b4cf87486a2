"""`iotune demo --testbed`: the storage itself tuned for real on throttled loop devices, then torn down."""

import subprocess

import pytest

from iotune.store import Store
from tests.cli.conftest import run_iotune

pytestmark = [pytest.mark.requires_root, pytest.mark.requires_mpi, pytest.mark.slow]


def test_testbed_demo_measures_each_storage_configuration(tmp_path):
    from iotune.testbed import support_problem

    if support_problem():
        pytest.skip(f"requires_root: {support_problem()}")
    result = run_iotune("demo", "--testbed", "--study", "tb", "--repeats", "1", "--db", "s.db", cwd=tmp_path,
                        timeout=600)
    assert result.returncode == 0, result.stderr
    assert "fastest configuration per workload" in result.stdout
    with Store(tmp_path / "s.db") as store:
        trials = store.trials(study="tb")
    assert len(trials) == 8 and {t.state for t in trials} == {"COMPLETE"}
    assert {(t.config["fs"], t.config["device_class"]) for t in trials} == {
        ("ext4", "slow"), ("ext4", "fast"), ("xfs", "slow"), ("xfs", "fast")}
    assert "iotune" not in subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
