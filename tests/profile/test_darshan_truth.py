"""Darshan profiles say the truth (issue 13, items 12-16), on real logs written by tests/profile/make_logs.py."""

import struct

import pytest

from iotune.profile import WorkloadError, from_darshan
from iotune.profile.darshan_header import MAGIC, read_header

from .conftest import LOGS

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
POINTLESS = ("console only", "import only", "tiny:", "many files", "STDIO:")


# ---- 12: DFS and DAOS data count

def test_dfs_data_is_the_interface_not_stdout(profile):
    w = profile("gen-dfs-ior-4procs")
    assert (w.interface, w.api, w.processes, w.file_per_process, w.operation) == ("DFS", "POSIX", 4, False, "readwrite")
    assert (w.transfer_size, w.block_size, w.bytes_read, w.bytes_written) == (MIB, 64 * MIB, 256 * MIB, 256 * MIB)
    assert "DFS" in w.modules and any("DFS is benchmarked through POSIX" in n for n in w.notes)


def test_daos_objects_are_data(profile):
    w = profile("gen-daos-arrays-2procs")
    assert (w.interface, w.api, w.processes, w.file_per_process) == ("DAOS", "POSIX", 2, True)
    assert (w.transfer_size, w.block_size, w.bytes_written) == (MIB, 8 * MIB, 16 * MIB)


# ---- 13: a file is shared when more than one rank accessed it

def test_shared_file_without_rank_minus_one_record(profile):
    w = profile("gen-shared-unreduced-32procs")
    assert (w.file_per_process, w.processes, w.api, w.collective) == (False, 32, "MPIIO", True)
    assert (w.transfer_size, w.block_size) == (MIB, 4 * MIB)
    assert any(n.startswith("shared file: 100%") for n in w.notes)


def test_files_of_one_rank_each_are_file_per_process(profile):
    w = profile("gen-many-files-4procs")
    assert (w.file_per_process, w.processes) == (True, 4)


# ---- 14: the interface is the layer that carries most bytes

def test_stdio_volume_beats_a_little_mpiio(profile):
    w = profile("gen-stdio-dominant-8procs")
    assert (w.interface, w.api, w.processes, w.file_per_process) == ("STDIO", "POSIX", 8, True)
    assert (w.bytes_written, w.block_size) == (16 * GIB, 2 * GIB)
    assert any("MPI-IO 16 MiB" in n and "STDIO 16 GiB" in n for n in w.notes)


# ---- 15: module tables per log format version

def _header(version: str, partial_bits: list[int]) -> bytes:
    flag = sum(1 << bit for bit in partial_bits)
    if float(version) >= 3.41:
        return struct.pack("<8sqB7xQ", version.encode(), MAGIC, 0, flag) + bytes(16 * 65 + 4 * 64)
    return struct.pack("<8sqB3xI", version.encode(), MAGIC, 0, flag) + bytes(16 * 17 + 4 * 16)


@pytest.mark.parametrize("version, bits, names", [
    ("3.00", [3, 4, 7], ("HDF5", "PNETCDF", "STDIO")),
    ("3.10", [6, 8, 10], ("LUSTRE", "DXT_POSIX", "MDHIM")),
    ("3.21", [5, 7, 8, 14], ("PNETCDF", "LUSTRE", "STDIO", "HEATMAP")),
    ("3.41", [6, 9, 15, 16, 17], ("PNETCDF_VAR", "STDIO", "HEATMAP", "DFS", "DAOS")),
])
def test_partial_flags_name_the_modules_of_the_logs_format(tmp_path, version, bits, names):
    path = tmp_path / "h.darshan"
    path.write_bytes(_header(version, bits))
    header = read_header(path)
    assert (header.version, header.partial_modules) == (version, names)


def test_format_321_log_flags_stdio_not_lustre(profile):
    w = profile("gen-format-321-stdio-partial")
    partial = [x for x in w.warnings if x.startswith("partial data")]
    assert len(partial) == 1 and "STDIO" in partial[0] and "lower bounds" in partial[0]
    assert (w.interface, w.processes, w.bytes_written) == ("POSIX", 2, 16 * MIB)


def test_dxt_only_partial_flag_leaves_counters_complete(profile):
    w = profile("gen-dxt-partial-2procs")
    partial = [x for x in w.warnings if x.startswith("partial data")]
    assert len(partial) == 1 and "DXT_POSIX" in partial[0] and "counters this profile reads are complete" in partial[0]
    assert not any("lower bound" in x for x in w.warnings)


# ---- 16: STDIO request size, pydarshan's errors, pointless tuning, I/O processes

def test_stdio_transfer_size_is_the_mean_per_call(profile):
    w = profile("gen-stdio-dominant-8procs")
    assert w.transfer_size == 8 * KIB
    assert any("transfer size" in x and "estimated" in x and "mean bytes per" in x for x in w.warnings)
    console = profile("gen-console-only")
    assert console.transfer_size == (40 * KIB + KIB) // 510


def test_undecompressable_log_keeps_pydarshans_error():
    with pytest.raises(WorkloadError) as error:
        from_darshan(LOGS / "gen-corrupt-module.darshan")
    text = str(error.value)
    assert "pydarshan" in text and "unable to inflate" in text and "POSIX" in text and "\n" not in text


@pytest.mark.parametrize("name, expected", [
    ("gen-console-only", {"console only", "tiny:"}),
    ("gen-import-only", {"import only", "tiny:"}),
    ("gen-tiny-2procs", {"tiny:"}),
    ("gen-many-files-4procs", {"many files"}),
    ("gen-stdio-dominant-8procs", {"STDIO:"}),
    ("ior-posix-16procs", set()),
    ("gen-dfs-ior-4procs", set()),
])
def test_pointless_tuning_is_said(profile, name, expected):
    w = profile(name)
    said = {key for key in POINTLESS for x in w.warnings if x.startswith(key)}
    assert said == expected
    assert all("pointless" in x for x in w.warnings if x.startswith(POINTLESS))


def test_io_processes_are_the_ranks_that_moved_bytes(profile):
    w = profile("gen-shared-some-idle-8procs")
    assert (w.processes, w.job_processes, w.file_per_process, w.block_size) == (4, 8, False, 16 * MIB)
    assert any("4 of 8" in n and "estimated" in n for n in w.notes)
