"""The results database: platforms, studies, trials and their raw measurements.

``Storage`` is the interface (:mod:`iotune.store.base`); ``Store`` implements it and is the only
code that writes the database (SQLite file by default, PostgreSQL by URL); it resumes crashed
campaigns and keeps trained models.  Reading commands open a store with :func:`open_reader`: a
SQLite file through the standard library's ``sqlite3`` (:mod:`iotune.store.reader`), anything else
through a read-only ``Store``.  :mod:`iotune.store.exchange` exports, imports and merges results
between any two storages with provenance.  The names load with their module when first used (PEP 562):
SQLAlchemy only when a ``Store`` is made.
"""

from iotune.lazy import lazy_exports

_EXPORTS = {"Storage": ".base", "StorageReader": ".base", "TRIAL_STATES": ".records", "ImportReport": ".records",
            "ModelRecord": ".records", "StudyRecord": ".records", "TrialRecord": ".records",
            "SCHEMA_VERSION": ".version", "Store": ".store", "open_reader": ".reader"}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)


def __dir__():
    return sorted({*globals(), *__all__})
