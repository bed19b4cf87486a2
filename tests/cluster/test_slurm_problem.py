"""Why the test Slurm cluster cannot start: the reasons the skips show (runs without Slurm too)."""

import tests.slurm_cluster as slurm_cluster


def test_missing_binaries_are_named_with_the_packages_to_install(monkeypatch):
    monkeypatch.setattr(slurm_cluster.shutil, "which", lambda name, path=None: None if name == "slurmd" else name)
    reason = slurm_cluster.slurm_problem()
    assert "slurmd" in reason and "munged" not in reason
    assert "apt-get install slurm-wlm munge" in reason


def test_not_root_is_a_reason(monkeypatch):
    monkeypatch.setattr(slurm_cluster.shutil, "which", lambda name, path=None: f"/usr/bin/{name}")
    monkeypatch.setattr(slurm_cluster.os, "geteuid", lambda: 1000)
    assert "root" in slurm_cluster.slurm_problem()


def test_foreign_slurm_variables_are_dropped_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("SLURM_JOB_ID", "12")
    monkeypatch.setenv("SBATCH_PARTITION", "big")
    monkeypatch.setenv("SLURM_CONF", "/etc/slurm/slurm.conf")
    env = slurm_cluster._clean_env(tmp_path)
    assert env["SLURM_CONF"] == str(tmp_path / "slurm.conf")
    assert "SLURM_JOB_ID" not in env and "SBATCH_PARTITION" not in env
