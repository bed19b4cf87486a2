"""What a package's modules declare: how the runners and the file-system drivers are found, not listed."""

from __future__ import annotations

import pkgutil
from collections.abc import Iterable
from importlib import import_module
from typing import Any


def declared(package: str, attribute: str, kind: type, skip: Iterable[str] = ()) -> list[Any]:
    """The ``attribute`` of every module of ``package`` that defines one of type ``kind``, in module order.

    Modules named in ``skip`` and private ones (``_name``) are not imported."""
    left_out = set(skip)
    found = []
    for module in pkgutil.iter_modules(import_module(package).__path__):
        if module.name in left_out or module.name.startswith("_"):
            continue
        value = getattr(import_module(f"{package}.{module.name}"), attribute, None)
        if isinstance(value, kind):
            found.append(value)
    return found
