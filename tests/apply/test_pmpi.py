"""iotune's PMPI library (paper 001's tuning and monitoring modules over the MPI profiling interface): an
application's own MPI-IO time, bytes and files measured from inside, and hints applied at open."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from iotune.apply.pmpi import HINTS_VARIABLE, OUT_VARIABLE, PmpiResult, PmpiUnavailable, library
from iotune.apply.pmpi.result import PmpiResultError

KERNEL = Path(__file__).parents[1] / "apps" / "checkpoint_mpiio.py"
MPIEXEC = str(Path(sys.executable).parent / "mpiexec")

pytestmark = pytest.mark.requires_mpi


@pytest.fixture(scope="session")
def pmpi_library():
    try:
        return library([MPIEXEC])
    except PmpiUnavailable as exc:
        pytest.skip(f"the PMPI library cannot be built here: {exc}")


def _clean_environ() -> dict:
    return {k: v for k, v in os.environ.items()
            if k not in ("ROMIO_HINTS", "MPICH_MPIIO_HINTS", "LD_PRELOAD") and not k.startswith("IOR_HINT__")}


def _run_kernel(tmp_path, library_path, hints: dict, *options) -> tuple[PmpiResult, dict]:
    hints_file = tmp_path / "hints"
    hints_file.write_text("".join(f"{k} {v}\n" for k, v in hints.items()))
    out, log = tmp_path / "pmpi.json", tmp_path / "kernel.jsonl"
    env = {**_clean_environ(), "LD_PRELOAD": str(library_path), OUT_VARIABLE: str(out),
           HINTS_VARIABLE: str(hints_file)}
    done = subprocess.run([MPIEXEC, "-n", "2", sys.executable, str(KERNEL), str(tmp_path / "ck"), "--log", str(log),
                           *options], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return PmpiResult.read(out), json.loads(log.read_text().splitlines()[-1])


@pytest.mark.parametrize("mode", ["collective", "independent", "nonblocking"])
def test_the_library_counts_the_kernels_bytes_and_files_and_leaves_out_its_computation(tmp_path, pmpi_library, mode):
    result, kernel = _run_kernel(tmp_path, pmpi_library, {}, "--steps", "3", "--sleep", "0.5", "--mode", mode)
    assert result.ranks == 2
    assert result.bytes_written == kernel["bytes_written"] == 3 * 2 * 64 * 4096
    assert result.bytes_read == kernel["bytes_read"]
    assert result.files == kernel["files"] == 3 and result.opens == 2 * 3
    assert 0 < result.io_seconds_fastest_rank <= result.io_seconds
    assert result.io_seconds < result.seconds_in_mpi - 0.45  # the 0.5 s sleep between MPI_Init and I/O is not I/O


def test_hints_are_applied_at_open_with_none_in_the_environment(tmp_path, pmpi_library):
    hints = {"romio_cb_write": "disable", "cb_buffer_size": "1048576"}
    result, kernel = _run_kernel(tmp_path, pmpi_library, hints)
    assert kernel["env"] == {}  # no ROMIO_HINTS, MPICH_MPIIO_HINTS, IOR_HINT__ in the application's environment
    assert result.asked == hints
    assert [r["name"] for r in result.file_records] == [f"{tmp_path / 'ck'}.0", f"{tmp_path / 'ck'}.1"]
    for record in result.file_records:
        assert {k: record["in_effect"][k] for k in hints} == hints  # read back with MPI_File_get_info
    assert {k: kernel["in_effect"][k] for k in hints} == hints  # as the application itself sees them


def test_without_hints_the_defaults_stay(tmp_path, pmpi_library):
    result, kernel = _run_kernel(tmp_path, pmpi_library, {})
    assert result.asked == {} and result.in_effect["romio_cb_write"] == kernel["in_effect"]["romio_cb_write"]


def test_no_mpicc_is_one_line(tmp_path):
    with pytest.raises(PmpiUnavailable, match="mpicc .* is not there"):
        library([MPIEXEC], {**os.environ, "IOTUNE_MPICC": str(tmp_path / "no-mpicc"),
                            "IOTUNE_PMPI_CACHE": str(tmp_path)})


def test_a_compiler_that_fails_is_one_line(tmp_path):
    broken = tmp_path / "mpicc"
    broken.write_text("#!/bin/sh\necho 'cc: error: no C compiler here' >&2\nexit 1\n")
    broken.chmod(0o755)
    with pytest.raises(PmpiUnavailable, match="cannot be built with .*no C compiler here.*a C compiler"):
        library([MPIEXEC], {**os.environ, "IOTUNE_MPICC": str(broken), "IOTUNE_PMPI_CACHE": str(tmp_path / "c")})
    assert not list((tmp_path / "c").rglob("*.so*"))


def test_the_library_is_built_once_per_mpicc(tmp_path, pmpi_library):
    environ = {**os.environ, "IOTUNE_PMPI_CACHE": str(pmpi_library.parents[1])}
    built = []
    assert library([MPIEXEC], environ, on_build=built.append) == pmpi_library and built == []


def test_a_missing_or_impossible_result_is_refused(tmp_path):
    with pytest.raises(PmpiResultError, match="did not reach MPI_Finalize"):
        PmpiResult.read(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"version": 1, "ranks": 2, "io_seconds": -1.0}))
    with pytest.raises(PmpiResultError, match="io_seconds is -1.0"):
        PmpiResult.read(bad)


def test_at_open_moves_the_hints_from_the_environment_to_the_library_and_keeps_the_users(tmp_path):
    from iotune.apply.pmpi.preload import at_open
    from iotune.apply.settings import apply_settings

    user = tmp_path / "user-hints"
    user.write_text("romio_cb_write enable\n")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    chosen = {"romio_cb_write": "disable", "cb_nodes": "1"}
    moved = at_open(apply_settings(chosen, {"MPICH_ASYNC_PROGRESS": "1"}, run_dir,
                                   environ={"ROMIO_HINTS": str(user)}), run_dir)
    assert set(moved.env) == {HINTS_VARIABLE, "MPICH_ASYNC_PROGRESS"}  # no ROMIO_HINTS, MPICH_MPIIO_HINTS, IOR_HINT__
    assert Path(moved.env[HINTS_VARIABLE]).read_text() == "cb_nodes 1\n"  # the user's romio_cb_write is kept
    assert moved.kept == {"romio_cb_write": "enable"} and moved.files == [moved.env[HINTS_VARIABLE]]
    overridden = at_open(apply_settings(chosen, {}, run_dir, environ={"ROMIO_HINTS": str(user)}, override=True),
                         run_dir)
    assert Path(overridden.env[HINTS_VARIABLE]).read_text() == "romio_cb_write disable\ncb_nodes 1\n"


THREADED = """
import sys, threading
import numpy as np
from mpi4py import MPI
assert MPI.Query_thread() == MPI.THREAD_MULTIPLE
rank = MPI.COMM_WORLD.Get_rank()
def write(thread):
    data = np.full(1 << 16, thread, dtype=np.uint8)
    for step in range(20):
        fh = MPI.File.Open(MPI.COMM_SELF, f"{sys.argv[1]}.{rank}.{thread}", MPI.MODE_CREATE | MPI.MODE_WRONLY)
        fh.Write_at(step * data.nbytes, data)
        fh.Close()
threads = [threading.Thread(target=write, args=(t,)) for t in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
"""


def test_threads_doing_io_at_once_are_all_counted(tmp_path, pmpi_library):
    script = tmp_path / "threaded.py"
    script.write_text(THREADED)
    out = tmp_path / "pmpi.json"
    env = {**_clean_environ(), "LD_PRELOAD": str(pmpi_library), OUT_VARIABLE: str(out)}
    done = subprocess.run([MPIEXEC, "-n", "2", sys.executable, str(script), str(tmp_path / "f")], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = PmpiResult.read(out)
    assert result.bytes_written == 2 * 4 * 20 * (1 << 16)  # ranks x threads x steps x bytes: no update lost
    assert result.opens == 2 * 4 * 20 and result.files == 2 * 4
