"""A campaign runs where clusters put it: a 100-character TMPDIR, a 63-character host name.

With TMPDIR of 34 characters or more every trial FAILED with "AF_UNIX path too long": the worker
world's control socket lived at $TMPDIR/iotune-world-<owner>_<random>/control.sock.
"""

import os
import subprocess
import sys

import pytest

from iotune.store import Store

pytestmark = pytest.mark.requires_mpi

# 63 characters: MPICH 5's MPI_Init fails on a 64-character host name ("gethostname failed, File name too long"),
# whatever iotune does; iotune's own owner tags hash names longer than 20 characters.
HOST = "login01-" + "n" * 28 + ".hpc.example-university.edu"


def _long_tmpdir(tmp_path, length=100):
    path = str(tmp_path / "t")
    path += "/" + "x" * (length - len(path) - 1)
    os.makedirs(path)
    assert len(path) == length
    return path


@pytest.mark.parametrize("host", [None, pytest.param(HOST, marks=pytest.mark.skipif(
    os.geteuid() != 0, reason="needs root for a UTS namespace"))], ids=["tmpdir", "tmpdir+host"])
def test_a_campaign_runs_with_a_100_character_tmpdir(workdir, tmp_path, host):
    tmpdir = _long_tmpdir(tmp_path)
    command = [sys.executable, "-m", "iotune", "bench", "tiny.yaml", "--db", "s.db", "--scratch", "scratch"]
    if host is not None:
        assert len(HOST) == 63
        command = ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', HOST, *command]
    done = subprocess.run(command, cwd=workdir, env={**os.environ, "IOTUNE_PLAIN": "1", "TMPDIR": tmpdir},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with Store(workdir / "s.db") as store:
        trials = store.trials(study="tiny")
    assert [t.state for t in trials] == ["COMPLETE"] * 36, {t.error for t in trials}
    assert os.listdir(tmpdir) == []  # the worlds' directories went with them


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root for a UTS namespace")
def test_a_64_character_host_name_is_refused_in_one_line_before_any_trial(workdir):
    host = HOST + "x"
    command = ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', host,
               sys.executable, "-m", "iotune", "bench", "tiny.yaml", "--db", "s.db", "--scratch", "scratch"]
    done = subprocess.run(command, cwd=workdir, env={**os.environ, "IOTUNE_PLAIN": "1"}, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "64 characters" in errors[0] and "unshare --uts" in errors[0], done.stderr
    assert "Traceback" not in done.stderr and "trial failed" not in done.stderr
    if (workdir / "s.db").exists():  # refused before the study was made: nothing stored, nothing to clean up
        with Store(workdir / "s.db") as store:
            assert [s.name for s in store.list_studies()] == []
