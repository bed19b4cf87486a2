"""The results database: platforms, studies, trials and their raw measurements.

``Storage`` is the interface (:mod:`iotune.store.base`); ``Store`` implements it and is the only
code that touches the database (SQLite file by default, PostgreSQL by URL); it resumes crashed
campaigns and keeps trained models.  :mod:`iotune.store.exchange` exports, imports and merges
results between any two storages with provenance.
"""

from iotune.store.base import Storage
from iotune.store.records import TRIAL_STATES, ImportReport, ModelRecord, StudyRecord, TrialRecord
from iotune.store.schema import SCHEMA_VERSION
from iotune.store.store import Store

__all__ = ["SCHEMA_VERSION", "TRIAL_STATES", "ImportReport", "ModelRecord", "Storage", "Store", "StudyRecord",
           "TrialRecord"]
