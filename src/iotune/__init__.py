"""iotune: find the I/O configuration that makes a parallel application fastest or cheapest.

``import iotune`` is cheap: the library's names (``create_study``, ``load_study``,
``Study``, ``run_bench``, ``errors``) load with their module when first used
(PEP 562), so that ``iotune --help`` and a worker start quickly.
"""

from importlib import import_module

__version__ = "0.1.0"

_EXPORTS = {"create_study": "iotune.api", "load_study": "iotune.api", "Study": "iotune.api",
            "run_bench": "iotune.api", "IotuneError": "iotune.errors"}
_SUBMODULES = ("errors", "runners", "api")

__all__ = ["__version__", *sorted(_EXPORTS), *_SUBMODULES]


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    if name in _SUBMODULES:
        return import_module(f"iotune.{name}")
    raise AttributeError(f"module 'iotune' has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *__all__})
