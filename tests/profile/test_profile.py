"""Workload profiles from real Darshan logs, IOR command lines and YAML files."""

import json
import os
import shutil
from pathlib import Path

import pytest

from iotune.cli.app import main
from iotune.profile import Workload, WorkloadError, from_darshan, from_ior_command, from_yaml, load_workload

LOGS = Path(__file__).parent / "fixtures"
KIB, MIB = 1024, 1 << 20


def test_ior_posix_16procs(profile):
    w = profile("ior-posix-16procs")
    assert (w.job_processes, w.processes, w.api, w.file_per_process, w.collective) == (16, 16, "POSIX", False, False)
    assert (w.transfer_size, w.block_size) == (256 * KIB, 1 * MIB)
    assert (w.bytes_read, w.bytes_written) == (16 * MIB, 16 * MIB)
    spec = w.to_benchmark_spec()
    assert (spec.block_size, spec.transfer_size, spec.operation, spec.file_per_process) == (MIB, 256 * KIB,
                                                                                          "readwrite", False)


@pytest.mark.parametrize("name, api, module", [("ior-hdf5-4procs", "HDF5", "H5D"),
                                               ("ior-pnetcdf-4procs", "PnetCDF", "PNETCDF_VAR")])
def test_high_level_libraries(profile, name, api, module):
    w = profile(name)
    assert (w.processes, w.interface, w.transfer_size, w.block_size) == (4, api, 256 * KIB, MIB)
    assert module in w.modules and f"{api} module present" in w.notes
    assert w.to_benchmark_spec().api == "MPIIO"


def test_mpi_io_test_darshan_340_is_independent(profile):
    w = profile("mpi-io-test-4procs-darshan-3.4.0")
    assert (w.processes, w.api, w.collective, w.transfer_size) == (4, "MPIIO", False, 16 * MIB)
    assert any("format 3.21" in n and "3.4.0" in n for n in w.notes)


def test_imbalanced_io_partial_data(profile):
    w = profile("imbalanced-io")
    assert (w.processes, w.api, w.collective, w.file_per_process) == (496, "MPIIO", True, False)
    assert any("partial data" in x and "POSIX" in x for x in w.warnings)


def test_dlio_single_non_mpi_process(profile):
    w = profile("dlio-python3")
    assert (w.processes, w.api, w.operation) == (1, "POSIX", "read")
    assert {"POSIX", "STDIO"} <= set(w.modules) and any("non-MPI" in n for n in w.notes)


def test_empty_log_is_an_error():
    with pytest.raises(WorkloadError, match="no instrumentation data"):
        from_darshan(LOGS / "empty.darshan")


@pytest.mark.parametrize("damage", ["truncate", "garble", "text", "empty"])
def test_damaged_files_are_one_line_errors(tmp_path, damage):
    data = (LOGS / "ior-posix-16procs.darshan").read_bytes()
    path = tmp_path / "bad.darshan"
    path.write_bytes({"truncate": data[:1500], "garble": data[:1400] + os.urandom(200) + data[1600:],
                      "text": b"hello, not a log\n" * 20, "empty": b""}[damage])
    with pytest.raises(WorkloadError) as error:
        from_darshan(path)
    assert "\n" not in str(error.value) and str(path) in str(error.value)


def test_ior_command_line():
    w = from_ior_command("ior -a MPIIO -c -t 4m -b 64m -s 2 -F -w -r -e -np 8 --bogus")
    assert (w.processes, w.api, w.collective, w.file_per_process, w.segment_count) == (8, "MPIIO", True, True, 2)
    assert (w.transfer_size, w.block_size, w.bytes_written) == (4 * MIB, 64 * MIB, 8 * 2 * 64 * MIB)
    assert any("--bogus" in x for x in w.warnings)
    long = from_ior_command("mpiexec -n 4 /opt/ior --api=NCMPI --blockSize 16m -t1m -r")
    assert (long.processes, long.interface, long.bytes_written, long.operation) == (4, "PnetCDF", 0, "read")
    with pytest.raises(WorkloadError, match="not an IOR"):
        from_ior_command("mpiexec -n 4 ./app")
    with pytest.raises(WorkloadError, match="-t"):
        from_ior_command("ior -t lots")


def test_yaml_workload(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("processes: 4\napi: MPIIO\nblock_size: 64MiB\ntransfer_size: 4MiB\n"
                    "bytes_written: 256MiB\ncollective: true\n")
    w = from_yaml(path)
    assert (w.processes, w.transfer_size, w.operation, w.collective) == (4, 4 * MIB, "write", True)
    path.write_text("processes: 4\napi: FORTRAN\nblock_size: 1\ntransfer_size: 1\n")
    with pytest.raises(WorkloadError, match="api must be"):
        load_workload(path)


def test_workload_round_trip_without_job_processes():
    w = Workload.from_io(interface="MPIIO", processes=4, transfer_size=MIB, bytes_per_process=4 * MIB,
                         collective=True, shared_file=True)
    assert Workload.from_mapping(w.to_dict()) == w


def test_workload_round_trip(profile):
    w = profile("gen-dfs-ior-4procs")
    assert Workload.from_mapping(w.to_dict(), w.source) == w


def test_cli_profile(capsys, tmp_path):
    assert main(["profile", str(LOGS / "ior-posix-16procs.darshan"), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["processes"] == 16 and data["benchmark"]["transfer_size"] == 256 * KIB
    assert main(["profile", str(LOGS / "imbalanced-io.darshan")]) == 0
    assert "496" in capsys.readouterr().out
    text = tmp_path / "notes.darshan"
    text.write_text("not a log")
    assert main(["profile", str(text)]) == 2
    err = capsys.readouterr().err
    assert "not a Darshan log" in err and "Traceback" not in err
    shutil.copy(LOGS / "empty.darshan", tmp_path / "e.darshan")
    assert main(["profile", str(tmp_path / "e.darshan")]) == 2
    assert "no instrumentation data" in capsys.readouterr().err


def test_hdf5_over_posix_from_python_is_profiled_by_its_datasets_not_the_interpreters_reads(profile):
    """Issue 19, item 8: h5py without MPI-IO, 2 ranks, 1000 one-byte dataset writes each to its own file, while
    both ranks read 2.5 MiB of h5py's compiled modules (99.5% of the POSIX bytes)."""
    w = profile("gen-h5py-posix-2procs")
    assert (w.interface, w.api, w.transfer_size, w.operation) == ("HDF5", "POSIX", 1, "write")
    assert (w.processes, w.file_per_process, w.bytes_read, w.bytes_written) == (2, True, 0, 2000)
    assert w.io_seconds == pytest.approx(0.02)
    assert any("3 file(s) of the program's runtime" in n for n in w.notes)
    assert any(n.startswith("HDF5 over POSIX") for n in w.notes)
    assert w.to_benchmark_spec().api == "POSIX"


@pytest.mark.parametrize("name, runtime", [
    ("/home/u/venv/lib/python3.11/site-packages/h5py/_objects.cpython-311-x86_64-linux-gnu.so", True),
    ("/home/u/venv/lib/python3.11/site-packages/h5py.libs/libhdf5-1f5e6b8a.so.310.4.0", True),
    ("/usr/lib/python3.11/json/__init__.py", True),
    ("/usr/lib/x86_64-linux-gnu/libz.so.1", True),
    ("/opt/conda/lib/python3.11/os.py", True),
    ("/etc/ld.so.cache", True),
    ("/scratch/h5/out.0.h5", False),
    ("/home/u/run/checkpoint.dat", False),
    ("/lustre/proj/solver_output.so_far", False),
])
def test_runtime_files_are_told_from_data(name, runtime):
    from iotune.profile.darshan_layers import is_runtime

    assert is_runtime(name) is runtime


def test_logs_whose_only_files_are_the_runtime_are_still_profiled_and_called_pointless(profile):
    w = profile("gen-import-only")
    assert any(x.startswith("import only") for x in w.warnings)
    assert not any("file(s) of the program's runtime" in n for n in w.notes)
