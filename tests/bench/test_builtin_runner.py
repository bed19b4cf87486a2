"""The built-in runner doing real I/O on a persistent two-rank MPI world (small sizes)."""

import os
import signal
import time
from pathlib import Path

import pytest

from iotune.bench.runner import BuiltinRunner
from iotune.bench.world import WorkerWorld
from iotune.errors import MpiNotFoundError
from iotune.records import BenchmarkSpec
from iotune.units import MIB

pytestmark = pytest.mark.requires_mpi

CASES = [
    dict(api="POSIX", file_per_process=False),
    dict(api="POSIX", file_per_process=True),
    dict(api="MPIIO", file_per_process=False, collective=True),
    dict(api="MPIIO", file_per_process=False, collective=False),
    dict(api="MPIIO", file_per_process=True, collective=True),
    dict(api="MPIIO", file_per_process=True, collective=False),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_real_io_bytes_ops_bandwidth_and_verify(runner, scratch, case):
    spec = BenchmarkSpec(processes=2, block_size=MIB, transfer_size=64 * 1024, segment_count=2, verify=True, **case)
    m = runner.run(spec, scratch)
    assert m.status == "COMPLETE", m.error
    assert [p.phase for p in m.phases] == ["write", "read"]
    for phase in m.phases:
        assert phase.bytes == 4 * MIB
        assert phase.ops == 64
        assert phase.seconds > 0
        assert phase.bandwidth_mib == pytest.approx(4 / phase.seconds)
        assert max(phase.open_seconds, phase.transfer_seconds, phase.close_seconds) <= phase.seconds + 1e-9
    assert m.phase("read").verify_errors == 0
    assert m.runner == "builtin" and m.wall_seconds > 0
    assert m.command.startswith("mpiexec -n 2 ior -a " + case["api"])
    assert m.read_cache_mode in ("drop_caches", "o_direct", "fadvise_dontneed")
    assert os.listdir(scratch) == []


def test_mpiio_hints_requested_are_in_effect(runner, scratch):
    hints = {"romio_cb_write": "disable", "cb_buffer_size": "1048576"}
    spec = BenchmarkSpec(api="MPIIO", collective=True, hints=hints, block_size=256 * 1024, transfer_size=64 * 1024)
    m = runner.run(spec, scratch)
    assert m.status == "COMPLETE", m.error
    assert m.hints_requested == hints
    assert {k: m.hints_in_effect.get(k) for k in hints} == hints
    assert "IOR_HINT__MPI__romio_cb_write=disable" in m.command


@pytest.mark.parametrize(("operation", "phases"), [("write", ["write"]), ("read", ["read"])])
def test_single_phase_operations(runner, scratch, operation, phases):
    spec = BenchmarkSpec(api="POSIX", operation=operation, block_size=128 * 1024, transfer_size=64 * 1024, verify=True)
    m = runner.run(spec, scratch)
    assert m.status == "COMPLETE", m.error
    assert [p.phase for p in m.phases] == phases
    assert m.phases[0].bytes == 256 * 1024
    if operation == "write":
        assert m.read_cache_mode == "none"
    else:
        assert m.phases[0].verify_errors == 0


@pytest.mark.parametrize(
    ("mode", "api", "transfer", "expected"),
    [
        ("o_direct", "POSIX", 64 * 1024, "o_direct"),
        pytest.param("o_direct", "POSIX", 1000, "fadvise_dontneed", marks=pytest.mark.slow),
        pytest.param("fadvise_dontneed", "MPIIO", 64 * 1024, "fadvise_dontneed", marks=pytest.mark.slow),
        ("page_cache", "POSIX", 64 * 1024, "page_cache"),
    ],
)
def test_forced_cache_modes_as_for_a_non_root_user(scratch, mode, api, transfer, expected):
    with BuiltinRunner(timeout=60, cache_mode=mode) as forced:
        spec = BenchmarkSpec(api=api, block_size=transfer * 4, transfer_size=transfer, verify=True)
        m = forced.run(spec, scratch)
    assert m.status == "COMPLETE", m.error
    assert m.read_cache_mode == expected
    assert m.phase("read").verify_errors == 0


@pytest.mark.requires_root
@pytest.mark.skipif(os.geteuid() != 0, reason="requires_root: dropping caches needs root")
def test_root_drops_caches_by_default(runner, scratch):
    m = runner.run(BenchmarkSpec(api="POSIX", block_size=64 * 1024, transfer_size=64 * 1024), scratch)
    assert m.read_cache_mode == "drop_caches"


def test_world_is_reused_across_trials(runner, scratch):
    spec = BenchmarkSpec(api="POSIX", block_size=64 * 1024, transfer_size=64 * 1024)
    assert runner.run(spec, scratch).status == "COMPLETE"
    pids = runner.world.pids
    for _ in range(3):
        m = runner.run(spec, scratch)
        assert m.status == "COMPLETE", m.error
    assert runner.world.pids == pids and len(pids) == 2


@pytest.mark.slow
def test_rank_crash_fails_the_trial_and_the_next_trial_succeeds(runner, scratch):
    spec = BenchmarkSpec(api="MPIIO", collective=True, block_size=64 * 1024, transfer_size=64 * 1024)
    before = runner.run(spec, scratch)
    old_pids = runner.world.pids
    crash = BenchmarkSpec(**{**spec.to_dict(), "env": {"IOTUNE_TEST_CRASH_RANK": "1"}})
    m = runner.run(crash, scratch)
    assert before.status == "COMPLETE" and m.status == "FAILED"
    assert "\n" not in m.error and ("status" in m.error or "closed" in m.error)
    assert os.listdir(scratch) == []
    after = runner.run(spec, scratch)
    assert after.status == "COMPLETE", after.error
    assert set(runner.world.pids).isdisjoint(old_pids)
    assert os.listdir(scratch) == []


@pytest.mark.slow
def test_world_is_replaced_after_a_rank_dies_between_trials(scratch):
    spec = BenchmarkSpec(api="POSIX", block_size=64 * 1024, transfer_size=64 * 1024)
    with WorkerWorld(2, timeout=30) as world:
        trial_dir = scratch / "t"
        trial_dir.mkdir()
        assert world.run(spec, trial_dir).status == "COMPLETE"
        old = world.pids
        os.kill(old[1], signal.SIGKILL)
        deadline = time.monotonic() + 10
        while world.alive and time.monotonic() < deadline:
            time.sleep(0.05)
        m = world.run(spec, trial_dir)
        assert m.status == "COMPLETE", m.error
        assert set(world.pids).isdisjoint(old)
        socket_dir = world._dir
        pids = old + world.pids
    assert not socket_dir.exists()
    assert _all_gone(pids)


def _all_gone(pids, wait=5.0):
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if not any(_is_worker(pid) for pid in pids):
            return True
        time.sleep(0.05)
    return False


def _is_worker(pid):
    try:
        return "iotune.bench.worker" in Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return False


def test_close_kills_the_ranks_and_removes_the_socket_dir(scratch):
    world = WorkerWorld(2, timeout=30)
    pids = world.ping()
    socket_dir = world._dir
    world.close()
    assert not socket_dir.exists()
    assert _all_gone(pids)


@pytest.mark.slow
def test_hung_rank_times_out_as_failed(scratch):
    spec = BenchmarkSpec(api="POSIX", block_size=64 * 1024, transfer_size=64 * 1024, env={"IOTUNE_TEST_HANG_RANK": "1"})
    with BuiltinRunner(timeout=2) as short:
        started = time.monotonic()
        m = short.run(spec, scratch)
        pids = short.world.pids
    assert m.status == "FAILED" and "within 2 s" in m.error
    assert time.monotonic() - started < 15
    assert os.listdir(scratch) == []
    assert _all_gone(pids)


@pytest.mark.parametrize("where", ["under_a_file", "missing", "proc"])
def test_unusable_scratch_is_a_failed_measurement(runner, tmp_path, where):
    plain = tmp_path / "plain"
    plain.write_text("x")
    scratch = {"under_a_file": plain / "sub", "missing": tmp_path / "nope", "proc": Path("/proc")}[where]
    m = runner.run(BenchmarkSpec(), scratch)
    assert m.status == "FAILED"
    assert m.error.startswith("scratch directory") and "\n" not in m.error
    assert plain.read_text() == "x"


def test_invalid_spec_is_a_failed_measurement(runner, scratch):
    m = runner.run(BenchmarkSpec(block_size=1000, transfer_size=256), scratch)
    assert m.status == "FAILED" and "multiple of transfer_size" in m.error


def test_process_count_change_replaces_the_world(runner, scratch):
    one = runner.run(BenchmarkSpec(api="POSIX", processes=1, block_size=64 * 1024, transfer_size=64 * 1024), scratch)
    assert one.status == "COMPLETE", one.error
    assert one.phases[0].bytes == 64 * 1024
    assert runner.world.processes == 1 and len(runner.world.pids) == 1


def test_missing_mpiexec_is_mpi_not_found(tmp_path):
    with pytest.raises(MpiNotFoundError, match="pip install mpich mpi4py"):
        BuiltinRunner(mpiexec=str(tmp_path / "no-mpiexec"))


@pytest.fixture
def read_only_dir(tmp_path):
    """A directory on a read-only bind mount (chmod does not stop root); skips where mounting is not allowed."""
    import subprocess

    path = tmp_path / "ro"
    path.mkdir()
    bind = subprocess.run(["mount", "--bind", str(path), str(path)], capture_output=True)
    if bind.returncode != 0:
        pytest.skip(f"requires_root: cannot bind-mount ({bind.stderr.decode().strip()})")
    try:
        remount = subprocess.run(["mount", "-o", "remount,bind,ro", str(path)], capture_output=True)
        if remount.returncode != 0:
            pytest.skip(f"requires_root: cannot remount read-only ({remount.stderr.decode().strip()})")
        yield path
    finally:
        subprocess.run(["umount", str(path)], capture_output=True)


@pytest.mark.requires_root
def test_read_only_scratch_is_a_failed_measurement(runner, read_only_dir):
    m = runner.run(BenchmarkSpec(), read_only_dir)
    assert m.status == "FAILED"
    assert m.error == f"scratch directory '{read_only_dir}' is not usable: Read-only file system"
