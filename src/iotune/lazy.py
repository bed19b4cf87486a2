"""Names a package exports but imports only when first used (PEP 562): a command pays only for what it uses."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports ``name`` from the module ``where[name]`` on first use
    (a name that starts with a dot is relative to ``package``); a name whose module is ``package.name`` itself
    is that submodule."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        imported = import_module(module, package)
        return imported if imported.__name__ == f"{package}.{name}" else getattr(imported, name)

    return __getattr__
