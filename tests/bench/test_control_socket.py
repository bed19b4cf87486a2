"""The worker world's control socket: any TMPDIR, only our own user, and a setup failure blamed on no trial."""

import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from iotune.bench import world as world_module
from iotune.bench.runner import BuiltinRunner
from iotune.bench.world import WorkerWorld, WorldSetupError, control_address, peer_uid, socket_address
from iotune.records import BenchmarkSpec

SPEC = BenchmarkSpec(api="POSIX", processes=1, block_size=64 * 1024, transfer_size=64 * 1024)


def test_a_path_too_long_for_a_unix_socket_becomes_an_abstract_name(tmp_path):
    short = tmp_path / "w"
    assert control_address(short) == str(short / "control.sock")
    long = tmp_path / ("w" * 100)
    assert control_address(long) == "@" + long.name
    assert socket_address("@" + long.name) == "\0" + long.name


@pytest.mark.requires_mpi
def test_a_world_runs_under_a_100_character_tmpdir(tmp_path, monkeypatch):
    long = tmp_path / ("t" * (99 - len(str(tmp_path))))
    long.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(long))
    with WorkerWorld(1, timeout=60) as world:
        assert len(world.ping()) == 1
        assert len(list(long.iterdir())) == 1  # the world's directory (its stderr), the socket is abstract
    assert list(long.iterdir()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to connect as uid 65534")
def test_the_peer_of_another_user_is_told_apart():
    name = f"iotune-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind("\0" + name)
        listener.listen(2)
        stranger = subprocess.Popen(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-I", "-c",
             f"import socket,time; s=socket.socket(socket.AF_UNIX); s.connect('\\0{name}'); time.sleep(5)"])
        try:
            connection, _ = listener.accept()
            with connection:
                assert peer_uid(connection) == 65534
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as own:
                own.connect("\0" + name)
                connection, _ = listener.accept()
                with connection:
                    assert peer_uid(connection) == os.geteuid()
        finally:
            stranger.kill()
            stranger.wait()


@pytest.mark.requires_mpi
def test_a_world_that_cannot_listen_is_raised_not_a_failed_trial(tmp_path, monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(world_module, "control_address", lambda directory: str(Path(directory) / "no" / "sock"))
    with BuiltinRunner(timeout=60) as runner, pytest.raises(WorldSetupError, match="cannot listen on the worker"):
        runner.run(SPEC, scratch)
    assert os.listdir(scratch) == []
