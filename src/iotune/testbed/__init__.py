"""A throttled storage testbed on loop devices: a file system, an I/O scheduler, blkio limits.

Needs root, loop devices and the cgroup v1 blkio controller.  Everything built
is recorded in a state file, so ``iotune testbed cleanup`` removes exactly that
after a crash and nothing else.
"""

from iotune.spec.storage import FILE_SYSTEMS, SCHEDULERS, StorageConfig
from iotune.testbed.cgroup import cgroup_of, run_in_cgroup
from iotune.testbed.errors import TestbedError, TestbedUnsupportedError
from iotune.testbed.provider import StorageSession, TestbedProvider
from iotune.testbed.system import support_problem
from iotune.testbed.testbed import (
    Built,
    Testbed,
    cleanup,
    default_root,
    list_testbeds,
    teardown_state,
    throttled_devices,
)

__all__ = [
    "FILE_SYSTEMS",
    "SCHEDULERS",
    "Built",
    "StorageConfig",
    "StorageSession",
    "Testbed",
    "TestbedError",
    "TestbedProvider",
    "TestbedUnsupportedError",
    "cgroup_of",
    "cleanup",
    "default_root",
    "list_testbeds",
    "throttled_devices",
    "run_in_cgroup",
    "support_problem",
    "teardown_state",
]
