"""The rules of a Darshan profile on plain records (no log, no child process): layers, ranks, warnings."""

import pytest

from iotune.profile.darshan_facts import io_processes, ranks_in_reduced
from iotune.profile.darshan_layers import choose, layers
from iotune.profile.darshan_log import summarize
from iotune.profile.darshan_warnings import pointless_tuning
from iotune.workload import WorkloadError

MIB = 1 << 20


def test_daos_under_dfs_is_not_counted_twice():
    dfs = [{"id": 1, "rank": -1, "DFS_BYTES_WRITTEN": 100}]
    daos = [{"id": 2, "rank": -1, "DAOS_BYTES_WRITTEN": 110}]
    chosen, _, warnings = choose(layers({"DFS": dfs, "DAOS": daos}))
    assert chosen.interface == "DFS" and not warnings  # the 10 bytes DAOS adds are under 10%


def test_posix_under_mpiio_is_the_same_bytes():
    mpiio = [{"id": 1, "rank": -1, "MPIIO_BYTES_WRITTEN": 100}]
    posix = [{"id": 1, "rank": -1, "POSIX_BYTES_WRITTEN": 100}, {"id": 2, "rank": 0, "POSIX_BYTES_WRITTEN": 60}]
    chosen, notes, warnings = choose(layers({"MPI-IO": mpiio, "POSIX": posix}))
    assert (chosen.interface, chosen.volume) == ("MPIIO", 100)
    assert "POSIX outside MPI-IO 60 B" in notes[0]
    assert len(warnings) == 1 and "POSIX outside MPI-IO" in warnings[0]  # 60 of 160 bytes are left out
    posix.append({"id": 3, "rank": 1, "POSIX_BYTES_WRITTEN": 50})
    assert choose(layers({"MPI-IO": mpiio, "POSIX": posix}))[0].interface == "POSIX"  # 110 B outside MPI-IO


def test_stdio_only_data_files_are_pointless_for_mpiio():
    said = pointless_tuning(interface="STDIO", share=1.0, total_bytes=64 * MIB, files={"/data/out.txt": (0, 64 * MIB)})
    assert len(said) == 1 and said[0].startswith("STDIO: all the bytes")


def test_reduced_record_rank_counts():
    # one rank wrote 64 MiB of a file 8 ranks opened: variance = E[x^2] - E[x]^2
    one = {"POSIX_BYTES_WRITTEN": 64 * MIB, "POSIX_SLOWEST_RANK_BYTES": 64 * MIB,
           "POSIX_F_VARIANCE_RANK_BYTES": (64 * MIB) ** 2 / 8 - (8 * MIB) ** 2}
    assert ranks_in_reduced(one, "POSIX", 8) == (1, True)
    # without a variance counter (DFS, DAOS): the busiest known rank's bytes
    dfs = {"DFS_BYTES_WRITTEN": 30 * MIB, "DFS_SLOWEST_RANK_BYTES": 10 * MIB}
    assert ranks_in_reduced(dfs, "DFS", 16) == (3, True)
    # the fastest rank moved bytes: every rank did
    busy = {"POSIX_BYTES_READ": 8 * MIB, "POSIX_FASTEST_RANK_BYTES": MIB, "POSIX_F_VARIANCE_RANK_BYTES": 5.0}
    assert ranks_in_reduced(busy, "POSIX", 8) == (8, False)
    per_rank = [{"id": 7, "rank": r, "POSIX_BYTES_READ": MIB * (r < 3)} for r in range(6)]
    assert io_processes(per_rank, "POSIX", 6) == (3, False)



def _data(records, complaints=()):
    return {"job": {"nprocs": 2}, "exe": "./app", "modules": {m: {} for m in records}, "records": records,
            "names": {}, "complaints": list(complaints), "header": {"version": "3.41", "partial_modules": []}}


def test_records_without_bytes_are_not_job_metadata_only():
    with pytest.raises(WorkloadError, match="no bytes moved: the log has 2 POSIX record"):
        summarize(_data({"POSIX": [{"id": 1, "rank": 0, "POSIX_OPENS": 1}, {"id": 2, "rank": 1, "POSIX_STATS": 3}]}))


def test_unreadable_records_keep_pydarshans_words():
    with pytest.raises(WorkloadError, match=r"pydarshan could not read .*\(Error: unable to inflate"):
        summarize(_data({"POSIX": []}, ["Error: unable to inflate darshan log data."]))
