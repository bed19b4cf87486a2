"""Provenance facts: file system of the scratch directory, MPI library, machine."""

import pytest

from iotune.bench.platform import fs_type, platform_info

MOUNTINFO = """\
22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
30 22 0:26 / /scratch rw,relatime shared:2 - xfs /dev/vdb rw
31 30 0:27 / /scratch/lustre\\040fs rw,relatime shared:3 - lustre 10.0.0.1@tcp:/fs rw
32 22 0:28 / /scratchy rw shared:4 - tmpfs tmpfs rw
"""


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/scratch/run1", "xfs"),
        ("/scratch", "xfs"),
        ("/scratch/lustre fs/a/b", "lustre"),
        ("/scratchy/x", "tmpfs"),
        ("/home/user", "ext4"),
    ],
)
def test_fs_type_takes_the_longest_mount_point_prefix(tmp_path, path, expected):
    info = tmp_path / "mountinfo"
    info.write_text(MOUNTINFO)
    assert fs_type(path, mountinfo=str(info)) == expected


@pytest.mark.requires_mpi
def test_platform_info_has_every_fact(tmp_path):
    info = platform_info(tmp_path)
    assert set(info) == {
        "hostname", "kernel", "os", "cpu_model", "cores", "fs_type",
        "mpi_library", "mpi_version", "iotune_version", "python_version",
    }
    assert info["cores"] >= 1 and info["fs_type"]
    assert info["mpi_library"] and info["mpi_version"]
