"""The campaign spec: the strict reader of a whole campaign file, and how a configuration is realised.

``campaign``: :class:`CampaignSpec`, the one typed object every command uses.
``mapping``: how a parameter reaches the benchmark (field, MPI-IO hint, environment).
``storage``: which parameters build storage, and the :class:`StorageConfig` a testbed builds.
The names load with ``campaign`` when first used (PEP 562): a reading command that needs only ``mapping`` does
not pay for the whole spec reader.
"""

from iotune.lazy import lazy_exports

__all__ = ["Adaptive", "CampaignSettings", "CampaignSpec", "ScreeningSettings", "load_spec"]

__getattr__ = lazy_exports(__name__, dict.fromkeys(__all__, ".campaign"))


def __dir__():
    return sorted({*globals(), *__all__})
