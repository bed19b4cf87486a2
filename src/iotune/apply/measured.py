"""A study's application runs of one objective only: runs measured differently are never compared.

``iotune tune -- APP`` and ``iotune run -- APP`` store every run of an
application in ``<study>-runs``, whatever measured it: wall time, a printed
metric, Darshan's or iotune's PMPI library's I/O time (``extra
["phase_seconds_source"]``, :func:`iotune.apply.command.measure_of`).  A
tuning reads that study through :class:`MeasuredAlike`, whose ``trials()``
holds only the finished runs measured as it measures (and every queued,
running or INVALID one, which no measure has touched), so its budget, its
prior, its noise and its answer come from those runs alone.
"""

from __future__ import annotations

from iotune.apply.command import measure_of
from iotune.stored import StoredStudy

FINISHED = ("COMPLETE", "FAILED")


class MeasuredAlike(StoredStudy):
    """``study`` seen through its runs measured as ``measure`` (:func:`iotune.apply.command.measure_key`)."""

    def __init__(self, store, record, spec=None, measure: str = ""):
        super().__init__(store, record, spec)
        self.measure = measure

    @classmethod
    def of(cls, study: StoredStudy, measure: str) -> MeasuredAlike:
        return cls(study.store, study.record, study.spec, measure)

    def trials(self, state: str | None = None) -> list:
        return [t for t in super().trials(state) if t.state not in FINISHED or measure_of(t.extra) == self.measure]

    def with_store(self, store) -> MeasuredAlike:
        return type(self)(store, self.record, self.spec, self.measure)
