"""Parallel HDF5 on a CephFS testbed (issue 30): a striped layout set on the empty file survives HDF5's open of it
(which truncates), iotune stores the layout read back from the file after the write, and HDF5's alignment to the
stripe unit is in the file written; the testbed leaves nothing behind."""

from __future__ import annotations

import pytest

from iotune.records import BenchmarkSpec
from iotune.spec.hdf5 import check_hdf5

pytestmark = [pytest.mark.slow, pytest.mark.requires_root, pytest.mark.requires_mpi, pytest.mark.requires_h5py_mpi]
MIB = 1 << 20


def test_an_hdf5_file_is_written_with_the_layout_and_alignment_asked(testbed_root):
    from iotune.bench.runner import BuiltinRunner
    from iotune.testbed import StorageConfig, Testbed

    layout = {"stripe_count": "3", "stripe_unit": str(MIB), "object_size": str(4 * MIB)}
    spec = BenchmarkSpec(api="HDF5", processes=2, block_size=2 * MIB, transfer_size=MIB, operation="write",
                         fsync=True, collective=True, layout=layout,
                         hdf5=check_hdf5({"datasets": "2", "alignment": "1MiB", "alignment_threshold": "64KiB"}))
    with Testbed(testbed_root) as bed:
        built = bed.build(StorageConfig(fs="cephfs", devices=3, write_mbps=20, size_mib=2048))
        with BuiltinRunner(timeout=300) as runner:
            result = runner.run(spec, built.mountpoint)
    assert result.status == "COMPLETE", result.error
    assert result.phase("write").bytes == 4 * MIB
    assert result.extra["layout_requested"] == layout
    assert {k: result.extra["layout_in_effect"][k] for k in layout} == layout
    assert result.extra["layout_in_effect"]["pool"] == "cephfs_data"
    assert result.extra["hdf5_in_effect"]["alignment"] == str(MIB)
    assert result.extra["hdf5_in_effect"]["datasets"] == "2"
