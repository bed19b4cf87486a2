"""What storage to build (file system, devices, scheduler, throttles) and which parameters of a space set it.

Storage options (``fs``, ``devices``, ``raid0``, ``scheduler``,
``device_class``, ``mount_options``; role ``system``, layer ``device`` or
``filesystem``; paper 000 Sec. 2.1) are applied by building a testbed, never
passed to the benchmark: :func:`storage_config` turns a configuration into the
:class:`StorageConfig` to build.  A ``device_class`` sets the throttles of the
pricing file's class of that name (:mod:`iotune.pricing`).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields

from iotune.errors import SpaceError
from iotune.pricing import packaged_device_classes

FILE_SYSTEMS = ("ext4", "xfs", "btrfs", "cephfs")
DEVICE_COUNTS = (1, 2, 4)
# cephfs: one BlueStore OSD (storage server) per device
CEPH_SERVERS = tuple(range(1, 9))
SCHEDULERS = ("none", "mq-deadline", "kyber", "bfq")
STORAGE_FIELDS = ("fs", "devices", "raid0", "scheduler", "device_class", "mount_options")
STORAGE_LAYERS = ("device", "filesystem")
MIN_SIZE_MIB = {"ext4": 16, "xfs": 300, "btrfs": 256, "cephfs": 1024}
# ceph-fuse's client options a testbed may set (its [client] section), as NAME=VALUE in mount_options
CEPH_CLIENT_OPTION = re.compile(r"(client|fuse)_[a-z_]+=[0-9A-Za-z.]+")


@dataclass(frozen=True)
class StorageConfig:
    """A testbed: ``devices`` loop devices of ``size_mib`` MiB each, one file system over them.

    ``raid0`` stripes data and metadata over the devices (btrfs ``-d raid0 -m raid0``);
    more than one device needs btrfs.  ``scheduler`` is the block I/O scheduler of every
    loop device.  ``write_mbps`` and ``read_mbps`` limit each device in MB/s (10**6 bytes
    per second); ``iops`` limits each device's reads and writes, each, in operations per
    second; None leaves that direction unthrottled.  ``mount_options`` is passed to
    ``mount -o``.

    With ``fs`` "cephfs" each device is one BlueStore OSD (a storage server, 1 to 8)
    with its own throttle, under one monitor and one MDS, mounted by ceph-fuse;
    ``mount_options`` are then ceph-fuse client settings ``NAME=VALUE`` (e.g.
    ``client_oc_size=67108864,client_oc_max_dirty=33554432``).
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
        if self.fs == "cephfs":
            return self._ceph_problem()
        if self.devices not in DEVICE_COUNTS:
            return f"devices must be one of {', '.join(map(str, DEVICE_COUNTS))}, got {self.devices!r}"
        if self.devices > 1 and self.fs != "btrfs":
            return f"devices > 1 needs fs='btrfs' (multi-device file system), got fs={self.fs!r}"
        if self.raid0 and self.devices < 2:
            return f"raid0 needs devices >= 2, got devices={self.devices}"
        shared = self._device_problem()
        if shared:
            return shared
        if any(c in self.mount_options for c in " \n\t"):
            return f"mount_options must be a comma-separated list without spaces, got {self.mount_options!r}"
        return None

    def _device_problem(self) -> str | None:
        """What every kind of testbed checks of its devices: scheduler, throttles and image size."""
        if self.scheduler not in SCHEDULERS:
            return f"scheduler must be one of {', '.join(SCHEDULERS)}, got {self.scheduler!r}"
        for name in ("write_mbps", "read_mbps", "iops"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                return f"{name} must be > 0 or None (unthrottled), got {value!r}"
        if not isinstance(self.size_mib, int) or self.size_mib < MIN_SIZE_MIB[self.fs]:
            return f"size_mib must be an integer >= {MIN_SIZE_MIB[self.fs]} for {self.fs}, got {self.size_mib!r}"
        return None

    def _ceph_problem(self) -> str | None:
        if self.devices not in CEPH_SERVERS:
            return f"a cephfs testbed has 1 to {CEPH_SERVERS[-1]} servers (devices), got {self.devices!r}"
        if self.raid0:
            return "raid0 does not apply to cephfs (set the files' layouts: stripe_count, stripe_unit)"
        shared = self._device_problem()
        if shared:
            return shared
        bad = [o for o in self.mount_options.split(",") if o and not CEPH_CLIENT_OPTION.fullmatch(o)]
        if bad:
            return (f"mount_options of cephfs must be ceph-fuse client settings NAME=VALUE "
                    f"(client_oc_size=67108864, ...), got {bad[0]!r}")
        return None

    @property
    def client_options(self) -> dict[str, str]:
        """cephfs: the ceph-fuse client settings in ``mount_options``, NAME -> VALUE."""
        return dict(o.split("=", 1) for o in self.mount_options.split(",") if o)

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


CONFIG_FIELDS = tuple(f.name for f in fields(StorageConfig))


def is_storage_parameter(parameter) -> bool:
    """True for a storage option the testbed applies: a storage name, role system, layer device or filesystem."""
    return (parameter.name in STORAGE_FIELDS and parameter.role == "system" and parameter.layer in STORAGE_LAYERS
            and not parameter.hint and not parameter.env)


def storage_parameters(space) -> list:
    """The parameters of ``space`` that are applied by building a storage testbed."""
    return [p for p in space.parameters if is_storage_parameter(p)]


def check_storage_levels(parameter) -> None:
    """Refuse levels of a storage parameter that no testbed can build (SpaceError, one line)."""
    allowed = {"fs": FILE_SYSTEMS, "devices": CEPH_SERVERS, "scheduler": SCHEDULERS, "raid0": (False, True),
               "device_class": tuple(packaged_device_classes())}
    if parameter.name in allowed:
        bad = [v for v in parameter.levels if v not in allowed[parameter.name]]
        if bad:
            raise SpaceError(f"parameter {parameter.name!r}: levels must be among "
                             f"{', '.join(map(str, allowed[parameter.name]))}, got {bad}")


def storage_config(space, configuration, defaults: dict | None = None, device_classes=None) -> StorageConfig | None:
    """The StorageConfig a configuration needs, or None when ``space`` has no storage parameter and no defaults.

    ``defaults`` fixes StorageConfig fields the space does not vary (the spec's
    ``storage:`` section, e.g. ``size_mib``); ``device_class`` sets
    ``write_mbps``, ``read_mbps`` and ``iops`` from ``device_classes`` (name ->
    :class:`iotune.pricing.DeviceClass`; default: the packaged pricing file).
    An inactive storage parameter (None) keeps the default.  SpaceError, in one
    line, for a combination that cannot be built (e.g. devices > 1 on ext4).
    """
    parameters = storage_parameters(space)
    if not parameters and not defaults:
        return None
    values = dict(defaults or {})
    classes = packaged_device_classes() if device_classes is None else device_classes
    if "device_class" in values:
        values.update(_class_limits(values.pop("device_class"), classes))
    for parameter in parameters:
        value = configuration[parameter.name]
        if value is None:
            continue
        if parameter.name == "device_class":
            values.update(_class_limits(value, classes))
        else:
            values[parameter.name] = value
    try:
        return StorageConfig(**values)
    except TypeError as error:
        raise SpaceError(f"storage defaults: {error}") from None
    except SpaceError as error:
        raise SpaceError(f"configuration {configuration.describe()}: {error}") from None


def _class_limits(name, classes) -> dict:
    if name not in classes:
        raise SpaceError(f"parameter 'device_class': {name!r} is not a device class of the pricing file "
                         f"(known: {', '.join(classes) or 'none'})")
    chosen = classes[name]
    return {"write_mbps": chosen.write_mbps, "read_mbps": chosen.read_mbps, "iops": chosen.iops}
