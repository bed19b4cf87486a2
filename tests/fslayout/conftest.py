"""The testbed fixtures, for the layout tests on a CephFS testbed."""

from tests.testbed.conftest import testbed_root  # noqa: F401 - a fixture
