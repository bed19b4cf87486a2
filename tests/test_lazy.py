"""iotune.lazy.lazy_exports: a package's names load with their module on first use, and only then."""

import subprocess
import sys

import pytest

from iotune.lazy import lazy_exports


def test_a_name_loads_from_its_module_absolute_or_relative():
    absolute = lazy_exports("iotune.runners", {"make_runner": "iotune.runners.registry"})
    relative = lazy_exports("iotune.runners", {"make_runner": ".registry"})
    from iotune.runners.registry import make_runner

    assert absolute("make_runner") is make_runner
    assert relative("make_runner") is make_runner


def test_an_unknown_name_is_an_attribute_error_naming_the_package():
    with pytest.raises(AttributeError, match="module 'iotune.runners' has no attribute 'nope'"):
        lazy_exports("iotune.runners", {})("nope")


def test_a_package_imports_the_module_of_a_name_only_when_it_is_used():
    code = ("import sys, iotune.runners as r; before = 'iotune.runners.replay' in sys.modules; r.ReplayRunner; "
            "print(before, 'iotune.runners.replay' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["False", "True"], done.stdout + done.stderr


def test_a_name_whose_module_is_the_package_s_submodule_of_that_name_is_the_submodule():
    import iotune.runners.registry as registry

    assert lazy_exports("iotune.runners", {"registry": ".registry"})("registry") is registry
