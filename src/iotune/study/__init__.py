"""Studies and the loop that measures them: a Study (spec, space, store), its campaign, its workers.

``Study``: a name, its campaign spec and the store of its trials.  ``Campaign``:
a sampler's proposals queued, measured by workers and told back.  ``Worker``:
claims and runs queued trials (in this process, ``iotune worker``, or Slurm).
``Objective``: what the sampler minimises (time, bandwidth as s/MiB, cost).
"""

from iotune.study.campaign import Campaign, CampaignReport
from iotune.study.objective import OBJECTIVES, Objective
from iotune.study.study import Study, StudyError, measurement_identity, spec_of
from iotune.study.worker import Worker, WorkerReport

__all__ = ["OBJECTIVES", "Campaign", "CampaignReport", "Objective", "Study", "StudyError", "Worker", "WorkerReport",
           "measurement_identity", "spec_of"]
