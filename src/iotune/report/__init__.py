"""``iotune report``: a study (or a Darshan log) as one self-contained HTML page with figures (issue 12).

Compute first, draw second.  The section modules turn the store's trials
into plain tables (:mod:`iotune.report.tables`): the campaign
(:mod:`~iotune.report.campaign`), every repeat per configuration
(:mod:`~iotune.report.performance`), screening effects
(:mod:`~iotune.report.effects`), model quality (:mod:`~iotune.report.models`),
search progress (:mod:`~iotune.report.progress`), variability
(:mod:`~iotune.report.spread`), the recommendation
(:mod:`~iotune.report.recommendation`) and a Darshan profile
(:mod:`~iotune.report.darshan`).  Only then does :mod:`~iotune.report.figures`
draw them with matplotlib and :mod:`~iotune.report.html` assemble the page;
:mod:`~iotune.report.build` runs the whole.  matplotlib is imported when a
figure is drawn, never on import.
"""

from iotune.report.build import Report, Written, profile_report, study_report, write_report
from iotune.report.tables import Figure, Section, Table

__all__ = ["Figure", "Report", "Section", "Table", "Written", "profile_report", "study_report", "write_report"]
