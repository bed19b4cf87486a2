"""Issue 21: every IotuneError subclass defined anywhere in iotune is reachable as ``iotune.errors.<Name>``."""

import importlib
import inspect
import pkgutil

import iotune
import iotune.errors
from iotune.errors import IotuneError


def _defined_subclasses():
    found = {}
    for info in pkgutil.walk_packages(iotune.__path__, "iotune."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if inspect.isclass(obj) and issubclass(obj, IotuneError) and obj.__module__ == info.name:
                found.setdefault(obj.__qualname__, []).append(obj)
    return found


def test_every_error_class_is_reachable_from_iotune_errors():
    found = _defined_subclasses()
    assert len(found) >= 30  # the walk found the package's errors (30 when this test was written)
    assert {name: classes for name, classes in found.items() if len(classes) > 1} == {}, "two errors share a name"
    missing = [name for name, (cls,) in found.items() if getattr(iotune.errors, name, None) is not cls]
    assert missing == []
    assert sorted(found) == sorted(iotune.errors.__all__)


def test_an_unknown_name_is_an_attribute_error():
    assert not hasattr(iotune.errors, "NoSuchError")
