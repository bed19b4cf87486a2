"""Screening effects with their uncertainty, and which parameters matter (paper 000, Section 4.1).

The effects, their intervals and the verdicts are computed in
:mod:`iotune.screening.significance` (its docstring says how); this module
shows them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from iotune.errors import IotuneError
from iotune.report.tables import Figure, Section, Table
from iotune.stored import StoredStudy

if TYPE_CHECKING:
    from iotune.screening.study import ScreeningStudy


def screening_study(data) -> tuple[StoredStudy | None, str]:
    """The study whose screening to show: this one if it was screened, else ``<study>-screen`` (the demo's)."""
    if isinstance(data.settings.get("screening"), dict):
        return data.study, ""
    sibling = f"{data.name}-screen"
    record = data.store.get_study(sibling)
    if record is not None and isinstance((record.settings or {}).get("screening"), dict):
        note = f"This study was not screened; the screening below is that of study {sibling}."
        return StoredStudy(data.store, record), note
    return None, ""


def effects_table(study: StoredStudy | ScreeningStudy) -> tuple[Table, dict]:
    """Factors by rank with their main effects on time (s) and bandwidth (MiB/s), intervals and verdict.

    Also returns facts about the computation (runs, method, paper's ranking).
    ScreeningError when the study's design is missing rows.
    """
    from iotune.screening.significance import significance  # scipy: loaded only for a screened study

    found = significance(study)
    rows = [(f.rank, f.name, f.low, f.high, f.effect_s, f.half_s, f.effect_bandwidth, f.half_bandwidth,
             "unknown" if f.matters is None else ("yes" if f.matters else "no"), f.paper_effect_s)
            for f in found.factors]
    table = Table(("rank", "parameter", "low", "high", "effect on I/O time (s)", "± (s, 95%)",
                   "effect on bandwidth (MiB/s)", "± (MiB/s, 95%)", "matters", "paper's effect sum (s)"), rows,
                  f"Screening effects (study {study.name})",
                  "Effect: mean over the design's runs at the high value minus the mean at the low value (positive "
                  "time effect: the high value is slower). Rank by the size of the time effect, 1 = most "
                  "influential. The paper's effect sum is the same effect times the design's runs / 2.")
    return table, {"runs": found.runs, "method": found.method, "factors": len(found.factors)}


def effects_section(data) -> Section:
    """Screening effects, their intervals and a verdict per parameter; says plainly when there is no screening."""
    title = "Screening: which parameters matter"
    study, note = screening_study(data)
    if study is None:
        return Section.nothing("screening", title, "This study was not measured by a Plackett-Burman screening "
                               "(its settings record no screening design): there are no effects to show. "
                               "`iotune screen SPEC` makes one.")
    try:
        table, facts = effects_table(study)
    except IotuneError as error:
        return Section.nothing("screening", title, f"The screening of study {study.name} cannot be computed: {error}")
    section = Section("screening", title, paragraphs=[note] if note else [])
    matter = [r[1] for r in table.rows if r[8] == "yes"]
    section.paragraphs.append(
        f"Foldover Plackett-Burman design of {facts['runs']} runs over {facts['factors']} parameters; "
        f"uncertainty from {facts['method']}. "
        + (f"Parameters whose effect on I/O time is beyond the noise: {', '.join(matter)}." if matter else
           "No parameter's effect on I/O time is beyond the noise." if facts["method"] != "none" else
           "Without repeats and with fewer than 4 factors the noise is unknown: every effect may be chance."))
    if facts["method"].startswith("Lenth"):
        section.paragraphs.append(
            f"Without repeats the noise is estimated from the {facts['factors']} effects themselves (Lenth's method, "
            "which takes most of them to be noise); with few parameters its intervals are wide and can hide real "
            "effects. Repeats give a direct estimate.")
    if facts["method"] == "none":
        section.warnings.append("The effects have no uncertainty: measure the screening with repeats "
                                "(campaign: repeats: 3) to know which differences are beyond run-to-run noise.")
    disagree = [r[1] for r in table.rows if r[4] * r[6] > 0 and abs(r[4]) > (r[5] or 0) and abs(r[6]) > (r[7] or 0)]
    if disagree:
        section.paragraphs.append(
            f"For {', '.join(disagree)} the time and bandwidth effects point the same way (slower and faster at "
            "once): the high value moves more bytes, or a few slow runs weigh on the mean time more than on the "
            "mean bandwidth.")
    section.tables.append(table)
    section.figures.append(Figure(
        "screening-effects", "effects", "Main effects with 95% intervals", table,
        "Bars: the main effect of each parameter from its low to its high value; whiskers: 95% interval. "
        "Dark bars are beyond the noise (the interval excludes zero); pale ones are not.",
        {"label": "parameter", "panels": [("effect on I/O time (s)", "± (s, 95%)"),
                                          ("effect on bandwidth (MiB/s)", "± (MiB/s, 95%)")],
         "matters": "matters"}))
    return section
