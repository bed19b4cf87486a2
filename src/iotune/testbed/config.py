"""What storage to build: file system, devices, scheduler, throttles."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from iotune.errors import SpaceError

FILE_SYSTEMS = ("ext4", "xfs", "btrfs")
DEVICE_COUNTS = (1, 2, 4)
SCHEDULERS = ("none", "mq-deadline", "kyber", "bfq")
MIN_SIZE_MIB = {"ext4": 16, "xfs": 300, "btrfs": 256}


@dataclass(frozen=True)
class StorageConfig:
    """A testbed: ``devices`` loop devices of ``size_mib`` MiB each, one file system over them.

    ``raid0`` stripes data and metadata over the devices (btrfs ``-d raid0 -m raid0``);
    more than one device needs btrfs.  ``scheduler`` is the block I/O scheduler of every
    loop device.  ``write_mbps`` and ``read_mbps`` limit each device in MB/s (10**6 bytes
    per second); ``iops`` limits each device's reads and writes, each, in operations per
    second; None leaves that direction unthrottled.  ``mount_options`` is passed to
    ``mount -o``.
    """

    fs: str = "ext4"
    devices: int = 1
    raid0: bool = False
    scheduler: str = "none"
    write_mbps: float | None = None
    read_mbps: float | None = None
    iops: int | None = None
    mount_options: str = ""
    size_mib: int = 512

    def __post_init__(self) -> None:
        problem = self.problem()
        if problem:
            raise SpaceError(problem)

    def problem(self) -> str | None:
        """Why this configuration cannot exist, in one line, or None."""
        if self.fs not in FILE_SYSTEMS:
            return f"fs must be one of {', '.join(FILE_SYSTEMS)}, got {self.fs!r}"
        if self.devices not in DEVICE_COUNTS:
            return f"devices must be one of {', '.join(map(str, DEVICE_COUNTS))}, got {self.devices!r}"
        if self.devices > 1 and self.fs != "btrfs":
            return f"devices > 1 needs fs='btrfs' (multi-device file system), got fs={self.fs!r}"
        if self.raid0 and self.devices < 2:
            return f"raid0 needs devices >= 2, got devices={self.devices}"
        if self.scheduler not in SCHEDULERS:
            return f"scheduler must be one of {', '.join(SCHEDULERS)}, got {self.scheduler!r}"
        for name in ("write_mbps", "read_mbps", "iops"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                return f"{name} must be > 0 or None (unthrottled), got {value!r}"
        if not isinstance(self.size_mib, int) or self.size_mib < MIN_SIZE_MIB[self.fs]:
            return f"size_mib must be an integer >= {MIN_SIZE_MIB[self.fs]} for {self.fs}, got {self.size_mib!r}"
        if any(c in self.mount_options for c in " \n\t"):
            return f"mount_options must be a comma-separated list without spaces, got {self.mount_options!r}"
        return None

    @property
    def write_bps(self) -> int | None:
        """The write limit in bytes per second, or None."""
        return None if self.write_mbps is None else int(round(self.write_mbps * 1e6))

    @property
    def read_bps(self) -> int | None:
        """The read limit in bytes per second, or None."""
        return None if self.read_mbps is None else int(round(self.read_mbps * 1e6))

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> StorageConfig:
        return cls(**data)
