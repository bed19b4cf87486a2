"""``iotune studies|export|import``: the shared training database."""

from __future__ import annotations

from pathlib import Path

import typer

from iotune.cli.options import DB, FORMAT, STUDY
from iotune.cli.terminal import Terminal, check_format


def studies(db: str = DB, fmt: str = FORMAT) -> None:
    """List the studies in the store with their trial counts."""
    from iotune.store import Store

    check_format(fmt)
    with Store(db) as store:
        rows = []
        for study in store.list_studies():
            states = store.trial_states(study.id)
            counts = {s: sum(1 for v in states.values() if v == s) for s in ("COMPLETE", "FAILED", "RUNNING")}
            rows.append([study.name, str(study.created_at)[:19], counts["COMPLETE"], counts["FAILED"],
                         counts["RUNNING"], study.origin or "local"])
    Terminal().emit(["study", "created", "complete", "failed", "running", "origin"], rows, fmt)


def export(path: Path = typer.Argument(..., help="File to write."),
           fmt: str = typer.Option(None, "--format", "-f",
                                   help="json (full fidelity, importable), csv or parquet (flat rows); "
                                        "default from the file name."),
           study: str = STUDY, db: str = DB) -> None:
    """Export measurements (every repeat, every phase) to share or analyse."""
    from iotune.errors import IotuneError
    from iotune.store import Store

    fmt = fmt or path.suffix.lstrip(".").lower()
    if fmt not in ("json", "csv", "parquet"):
        raise IotuneError(f"export format must be json, csv or parquet, got {fmt!r}")
    with Store(db) as store:
        if study and store.get_study(study) is None:
            raise IotuneError(f"no study named {study!r} in {store.url}")
        store.export(path, fmt, study=study)
    Terminal().success(f"exported to {path} ({fmt})")


def import_(path: Path = typer.Argument(..., help="An iotune export (JSON or CSV)."), db: str = DB) -> None:
    """Merge another store's export into this one, skipping trials already present."""
    from iotune.store import Store

    with Store(db) as store:
        report = store.import_file(path)
    Terminal().success(
        f"imported {path}: {report.trials_added} trials added, {report.trials_duplicate} duplicates skipped, "
        f"{report.studies_added} studies added, {report.studies_merged} merged")


def import_ior(paths: list[Path] = typer.Argument(..., help="IOR -O summaryFormat=JSON files (a .log beside each "
                                                             "supplies the hints, from --mpiio.showHints)."),
               study: str = typer.Option("ior", "--study", "-s", help="Study to store the runs in."),
               db: str = DB) -> None:
    """Store IOR's JSON output as trials: every repetition, every phase, with hints when the .log has them."""
    from iotune.importers.ior import import_ior as run_import
    from iotune.store import Store

    with Store(db) as store:
        report = run_import(store, paths, study)
    Terminal().success(f"{report.runs} IOR tests: {report.trials_added} trials added to study {report.study!r}, "
                       f"{report.trials_duplicate} already there")
