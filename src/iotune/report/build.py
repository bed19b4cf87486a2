"""Compute a report's sections, then draw and write it: the HTML page and, with ``plots``, SVG + PNG + CSV per figure.

A section whose computation meets a refusal (an :class:`~iotune.errors.IotuneError`:
too little data, a missing design) says so in the page instead of ending the
report; anything else is a bug and propagates.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from iotune.errors import IotuneError
from iotune.report.tables import Section
from iotune.stored import StoredStudy


@dataclass
class Report:
    """Computed sections, ready to draw; ``seconds`` says how long each section took to compute."""

    title: str
    subtitle: str
    sections: list[Section]
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def figures(self) -> list:
        return [figure for section in self.sections for figure in section.figures]


@dataclass
class Written:
    """What :func:`write_report` wrote: the page, its size (bytes), figure files, and seconds spent drawing."""

    path: Path
    size: int
    figures: int
    plot_files: list[Path]
    draw_seconds: float


def _timed(seconds: dict, key: str, title: str, compute: Callable[[], Section]) -> Section:
    start = time.perf_counter()
    try:
        return compute()
    except IotuneError as error:
        return Section.nothing(key, title, f"This section could not be computed: {error}")
    finally:
        seconds[key] = time.perf_counter() - start


def study_report(study: StoredStudy, workload: dict | None = None, workload_source: str | None = None,
                 profile: str | Path | None = None, fits=None) -> Report:
    """Every section of a study's report (and a Darshan profile's, when given).

    ``workload`` (values in :mod:`iotune.workload`'s vocabulary) chooses what to recommend for; without it a
    ``profile``'s workload is used, else every workload of the space.  ``fits`` (a
    :class:`~iotune.report.fits.FitCache`) keeps the held-out predictions between reports of the same data.
    """
    from iotune.report.campaign import campaign_section
    from iotune.report.context import StudyData
    from iotune.report.effects import effects_section
    from iotune.report.models import models_section
    from iotune.report.performance import performance_section
    from iotune.report.progress import progress_section
    from iotune.report.recommendation import recommendation_section
    from iotune.report.spread import spread_section
    from iotune.report.tuning import tuning_section

    seconds: dict[str, float] = {}
    start = time.perf_counter()
    data = StudyData.load(study, fits)
    read = None
    if profile is not None:
        from iotune.report.darshan import read_profile

        read = read_profile(profile)  # read once: the profile's section, and its workload when none is given
        if workload is None:
            workload, workload_source = read[1].values(), str(profile)
    seconds["load"] = time.perf_counter() - start
    parts = [("campaign", "The campaign", lambda: campaign_section(data)),
             ("performance", "Bandwidth and I/O time per configuration", lambda: performance_section(data)),
             ("screening", "Screening: which parameters matter", lambda: effects_section(data)),
             ("models", "Model quality", lambda: models_section(data)),
             ("progress", "Search progress", lambda: progress_section(data)),
             ("tuning", "Tuning", lambda: tuning_section(data)),
             ("variability", "Variability", lambda: spread_section(data)),
             ("recommendation", "Recommendation",
              lambda: recommendation_section(data, workload, workload_source))]
    sections = [_timed(seconds, key, title, compute) for key, title, compute in parts]
    if profile is not None:
        from iotune.report.darshan import profile_section

        sections.append(_timed(seconds, "profile", "Workload profile", lambda: profile_section(profile, read)))
    from iotune.store.engine import masked

    return Report(f"iotune report: study {data.name}", f"store {masked(data.store.url)}", sections, seconds)


def profile_report(path: str | Path) -> Report:
    """The report of one Darshan log (WorkloadError when it cannot be read)."""
    from iotune.report.darshan import profile_section

    start = time.perf_counter()
    section = profile_section(path)
    return Report(f"iotune report: {Path(path).name}", f"Darshan log {path}", [section],
                  {"profile": time.perf_counter() - start})


def write_report(report: Report, output: str | Path, plots: str | Path | None = None) -> Written:
    """Draw every figure and write the page to ``output``; with ``plots``, each figure as SVG, PNG and CSV there."""
    import iotune
    from iotune.output import STDOUT, write_output
    from iotune.report.figures import render
    from iotune.report.html import page

    output = Path(output)
    names = [f.name for f in report.figures]
    if len(names) != len(set(names)):
        raise IotuneError(f"report figures must have distinct names, got {names}")
    plot_dir = Path(plots) if plots is not None else None
    if plot_dir is not None:
        try:
            plot_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise IotuneError(f"cannot write plots to {plot_dir}: {error.strerror or error}") from None
    start = time.perf_counter()
    svgs, files = {}, []
    for figure in report.figures:
        svg, png = render(figure, png=plot_dir is not None)
        svgs[figure.name] = svg
        if plot_dir is not None:
            stem = plot_dir / figure.name
            table = figure.data.to_csv().encode()
            for suffix, content in ((".svg", svg.encode()), (".png", png or b""), (".csv", table)):
                write_output(stem.with_suffix(suffix), content, "figure")
                files.append(stem.with_suffix(suffix))
    text = page(report.title, report.subtitle, report.sections, svgs, iotune.__version__)
    if str(output) != STDOUT:
        try:
            output.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise IotuneError(f"cannot write the report to {output}: {error.strerror or error}") from None
    write_output(output, text, "report")
    return Written(output, len(text.encode()), len(svgs), files, time.perf_counter() - start)
