"""Studies and the loop that measures them: a Study (spec, space, store), its campaign, its workers.

``Study``: :class:`iotune.stored.StoredStudy` (a name, its campaign spec and the
store of its trials), named here for the loop; ``iotune.Study`` is the library
face over it (:mod:`iotune.api`).  ``Campaign``:
a sampler's proposals queued, measured by workers and told back.  ``Worker``:
claims and runs queued trials (in this process, ``iotune worker``, or Slurm).
``Objective``: what the sampler minimises (time, bandwidth as s/MiB, cost).

Names load with their module when first used, so that a worker (which needs
no sampler, hence no scipy) starts quickly: on a cluster, hundreds of workers
importing scipy at once from a shared file system is a start-up storm.
"""

from iotune.lazy import lazy_exports

_EXPORTS = {"Campaign": ".campaign", "CampaignReport": ".campaign", "OBJECTIVES": ".objective",
            "Objective": ".objective", "StoredStudy": ".study", "Study": ".study", "StudyError": ".study",
            "measurement_identity": ".study", "spec_of": ".study", "Worker": ".worker", "WorkerReport": ".worker"}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
