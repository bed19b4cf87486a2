"""``api: HDF5``: real parallel HDF5 files written by the worker world, every setting read back from the file."""

import pytest

from iotune.records import BenchmarkSpec
from iotune.units import KIB

pytestmark = [pytest.mark.requires_mpi, pytest.mark.requires_h5py_mpi]

SETTINGS = {"datasets": "2", "chunked": "true", "chunk_size": str(32 * KIB), "alignment_threshold": str(16 * KIB),
            "alignment": str(64 * KIB), "meta_block_size": str(8 * KIB), "mdc_initial_size": str(4 << 20),
            "coll_metadata": "true", "fs_strategy": "aggr"}


def hdf5_spec(**fields) -> BenchmarkSpec:
    values = {"api": "HDF5", "processes": 2, "block_size": 128 * KIB, "transfer_size": 32 * KIB, "segment_count": 2,
              "verify": True, "operation": "readwrite"} | fields
    return BenchmarkSpec(**values)


def test_every_hdf5_setting_and_hint_takes_effect_in_the_file_written(runner, scratch):
    spec = hdf5_spec(collective=True, hdf5=SETTINGS, hints={"cb_nodes": "1", "romio_cb_write": "enable"})
    result = runner.run(spec, scratch)
    assert result.status == "COMPLETE", result.error
    write, read = result.phase("write"), result.phase("read")
    assert write.bytes == read.bytes == spec.aggregate_bytes
    assert read.verify_errors == 0
    in_effect = result.extra["hdf5_in_effect"]
    for name, value in SETTINGS.items():
        assert in_effect[name] == value, name
    assert in_effect["collective"] == "true" and in_effect["driver"] == "mpio"
    assert result.hints_in_effect["hdf5.alignment"] == str(64 * KIB)
    # ROMIO's own answer for HDF5's MPI_File (MPI_File_get_info), with the hints it sets itself
    assert result.hints_in_effect["cb_nodes"] == "1"
    assert result.hints_in_effect["romio_cb_write"] == "enable"
    assert "cb_buffer_size" in result.hints_in_effect


def test_paged_file_space_overrides_the_alignment_and_the_read_back_says_so(runner, scratch):
    # HDF5 aligns to the page size under paged aggregation, whatever H5Pset_alignment asked
    settings = {**SETTINGS, "fs_strategy": "page", "fs_page_size": str(16 * KIB)}
    result = runner.run(hdf5_spec(operation="write", verify=False, hdf5=settings), scratch)
    assert result.status == "COMPLETE", result.error
    in_effect = result.extra["hdf5_in_effect"]
    assert in_effect["fs_strategy"] == "page" and in_effect["fs_page_size"] == str(16 * KIB)
    ran = int(result.hints_in_effect["hdf5.alignment"])
    assert ran != 64 * KIB and ran % (16 * KIB) == 0


def test_hdf5_defaults_are_read_back_as_hdf5s_own(runner, scratch):
    result = runner.run(hdf5_spec(operation="write", verify=False), scratch)
    assert result.status == "COMPLETE", result.error
    in_effect = result.extra["hdf5_in_effect"]
    assert in_effect == {**result.extra["hdf5_requested"], "driver": "mpio", "collective": "false"}
    assert in_effect["chunked"] == "false" and in_effect["datasets"] == "1"
    assert in_effect["fs_strategy"] == "fsm_aggr"


def test_contiguous_datasets_start_at_the_alignment_asked(runner, scratch):
    # the alignment in effect is the one the datasets' addresses in the file have, not only the property set
    settings = {"datasets": "4", "alignment_threshold": "1", "alignment": str(1 << 20)}
    result = runner.run(hdf5_spec(operation="write", verify=False, segment_count=1, hdf5=settings), scratch)
    assert result.status == "COMPLETE", result.error
    assert result.extra["hdf5_in_effect"]["alignment"] == str(1 << 20)
    assert result.extra["hdf5_in_effect"]["datasets"] == "4"


def test_file_per_process_goes_through_the_posix_driver(runner, scratch):
    spec = hdf5_spec(file_per_process=True, hdf5={"datasets": "2", "meta_block_size": str(4 * KIB)})
    result = runner.run(spec, scratch)
    assert result.status == "COMPLETE", result.error
    assert result.phase("read").verify_errors == 0
    for rank in result.extra["hdf5_in_effect_per_rank"]:
        assert rank["driver"] == "sec2" and rank["datasets"] == "2" and rank["meta_block_size"] == str(4 * KIB)
    assert not list(scratch.iterdir())
