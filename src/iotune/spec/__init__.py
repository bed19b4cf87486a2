"""The campaign spec: the strict reader of a whole campaign file, and how a configuration is realised.

``campaign``: :class:`CampaignSpec`, the one typed object every command uses.
``mapping``: how a parameter reaches the benchmark (field, MPI-IO hint, environment).
``storage``: which parameters build storage, and the :class:`StorageConfig` a testbed builds.
"""

from iotune.spec.campaign import Adaptive, CampaignSettings, CampaignSpec, ScreeningSettings, load_spec

__all__ = ["Adaptive", "CampaignSettings", "CampaignSpec", "ScreeningSettings", "load_spec"]
