"""Errors of the storage testbed."""

from iotune.errors import IotuneError


class TestbedError(IotuneError, RuntimeError):
    """A testbed could not be built, torn down or used."""

    __test__ = False  # not a pytest test class despite the name


class TestbedUnsupportedError(TestbedError):
    """This machine or user cannot host a testbed (no root, no loop devices, no blkio cgroup)."""
