"""``iotune report``: a study, or a Darshan log, as one self-contained HTML page with figures."""

from __future__ import annotations

from pathlib import Path

import typer

from iotune.cli.options import DB
from iotune.cli.terminal import Terminal
from iotune.errors import IotuneError


def report(
    study: str = typer.Option(None, "--study", "-s", help="Study to report on."),
    profile: Path = typer.Option(None, "--profile", help="A Darshan log to summarise as a workload (alone, or with "
                                 "--study: then also the workload to recommend for)."),
    output: Path = typer.Option(Path("report.html"), "--output", "-o", help="The HTML file to write."),
    plots: Path = typer.Option(None, "--plots", help="Also write each figure here as SVG and PNG, with its data "
                               "as CSV."),
    workload: str = typer.Option(None, "--workload", "-w", help="Workload to recommend for, as iotune recommend "
                                 "takes it: name=value pairs, a workload YAML file, a Darshan log or an IOR command "
                                 "line (default: the --profile log, else every measured workload)."),
    db: str = DB,
) -> None:
    """Write one self-contained HTML report (no network needed to open it) with figures of a study or a profile."""
    terminal = Terminal()
    if study is None and profile is None:
        raise IotuneError("give --study S (a study's report) or --profile app.darshan (a workload's), or both")
    if profile is not None and not profile.is_file():
        raise IotuneError(f"--profile {profile}: no such file")
    if study is None:
        if workload is not None:
            raise IotuneError("--workload needs --study: it chooses what the study's model recommends for")
        from iotune.report import profile_report

        made = profile_report(profile)
    else:
        from iotune.profile import workload_values_from
        from iotune.store import open_reader
        from iotune.stored import StoredStudy

        values = workload_values_from(workload)[0] if workload is not None else None
        with open_reader(db) as store:
            opened = StoredStudy.open(store, study)  # a typo is refused before the report's libraries load (seconds)
            from iotune.report import study_report
            from iotune.report.fits import FitCache

            made = study_report(opened, values, workload, profile, FitCache.default())
    from iotune.report import write_report

    written = write_report(made, output, plots)
    empty = [s.title for s in made.sections if s.empty]
    terminal.success(f"report written to {written.path} ({written.size / 1024:.0f} KiB, {written.figures} figures)"
                     + (f"; nothing to show for: {', '.join(empty)}" if empty else ""))
    if plots is not None:
        terminal.info(f"figures as SVG, PNG and CSV in {plots} ({len(written.plot_files)} files)")
