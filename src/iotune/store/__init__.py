"""The results database: platforms, studies, trials and their raw measurements.

``Store`` is the only code that touches the database (SQLite file by default,
PostgreSQL by URL); it resumes crashed campaigns and exports, imports and
merges results between stores with provenance, and keeps trained models
(schema version 2).
"""

from iotune.store.records import TRIAL_STATES, ImportReport, ModelRecord, StudyRecord, TrialRecord
from iotune.store.schema import SCHEMA_VERSION
from iotune.store.store import Store

__all__ = ["SCHEMA_VERSION", "TRIAL_STATES", "ImportReport", "ModelRecord", "Store", "StudyRecord", "TrialRecord"]
