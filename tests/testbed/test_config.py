"""StorageConfig validation and the support probe (no root needed)."""

import pytest

from iotune.errors import IotuneError
from iotune.testbed import StorageConfig, support_problem, system


def test_defaults_are_one_unthrottled_ext4_device():
    config = StorageConfig()
    assert (config.fs, config.devices, config.scheduler, config.write_bps, config.read_bps) == (
        "ext4", 1, "none", None, None)


def test_limits_are_in_decimal_megabytes_per_second():
    assert StorageConfig(write_mbps=32, read_mbps=1.5).write_bps == 32_000_000
    assert StorageConfig(read_mbps=1.5).read_bps == 1_500_000


@pytest.mark.parametrize("kwargs, message", [
    ({"fs": "zfs"}, "fs must be one of ext4, xfs, btrfs"),
    ({"devices": 3}, "devices must be one of 1, 2, 4"),
    ({"devices": 2}, "devices > 1 needs fs='btrfs'"),
    ({"fs": "btrfs", "raid0": True}, "raid0 needs devices >= 2"),
    ({"scheduler": "cfq"}, "scheduler must be one of"),
    ({"write_mbps": 0}, "write_mbps must be > 0"),
    ({"iops": -1}, "iops must be > 0"),
    ({"fs": "xfs", "size_mib": 100}, "size_mib must be an integer >= 300 for xfs"),
    ({"mount_options": "noatime, sync"}, "mount_options"),
])
def test_invalid_configs_name_the_parameter(kwargs, message):
    with pytest.raises(IotuneError, match=message.replace("(", r"\(")):
        StorageConfig(**kwargs)


def test_round_trip_through_a_dict():
    config = StorageConfig(fs="btrfs", devices=2, raid0=True, write_mbps=10)
    assert StorageConfig.from_dict(config.to_dict()) == config


def test_probe_refuses_without_root(monkeypatch):
    monkeypatch.setattr(system.os, "geteuid", lambda: 1000)
    assert support_problem() == "the testbed needs root"
