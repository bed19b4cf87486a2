"""iotune: find the I/O configuration that makes a parallel application fastest or cheapest.

``import iotune`` is cheap: the library's names (``create_study``, ``load_study``,
``Study``, ``run_bench``, ``errors``) load with their module when first used
(PEP 562), so that ``iotune --help`` and a worker start quickly.
"""

from iotune.lazy import lazy_exports

__version__ = "0.1.0"

_EXPORTS = {"create_study": ".api", "load_study": ".api", "Study": ".api", "run_bench": ".api",
            "IotuneError": ".errors", **{name: f".{name}" for name in ("errors", "runners", "api")}}

__all__ = ["__version__", *sorted(_EXPORTS)]

__getattr__ = lazy_exports(__name__, _EXPORTS)


def __dir__():
    return sorted({*globals(), *__all__})
