"""``iotune study ...``: what users of optuna's CLI expect of stored studies: list, trial history, best trial,
delete, rename, and the models stored with them."""

from __future__ import annotations

import sys

import typer

from iotune.cli.options import DB, FORMAT
from iotune.cli.terminal import Terminal, check_format
from iotune.errors import IotuneError

app = typer.Typer(help="Stored studies: list, history, best, delete, rename, models.", no_args_is_help=True)

NAME = typer.Argument(..., help="The study's name (iotune study list shows them).")


def _record(store, name: str):
    from iotune.stored import StoredStudy

    return StoredStudy.open(store, name).record


@app.command("list")
def list_(db: str = DB, fmt: str = FORMAT) -> None:
    """The studies with their trial counts (the same as iotune studies)."""
    from iotune.cli.store_cmd import studies

    studies(db=db, fmt=fmt)


@app.command("history")
def history(study: str = NAME, db: str = DB, fmt: str = FORMAT) -> None:
    """Every trial in the order it started: parameters that vary, state, write and read times, best so far."""
    from iotune.cli.trial_table import trial_table
    from iotune.records import io_seconds
    from iotune.store import open_reader

    check_format(fmt)
    with open_reader(db) as store:
        record = _record(store, study)
        trials = sorted(store.trials(study=study), key=lambda t: (t.started_at or "~", t.id))
    columns, rows = trial_table(trials, {record.name: record.space})
    best, shown = None, []
    for number, (trial, row) in enumerate(zip(trials, rows, strict=True)):
        if trial.state == "COMPLETE" and trial.phases:
            seconds = io_seconds(trial.phases)
            best = seconds if best is None else min(best, seconds)
        shown.append([number, trial.started_at[:19] if trial.started_at else None, *row,
                      None if best is None else round(best, 6)])
    Terminal().emit(["number", "started", *columns, "best so far s"], shown, fmt,
                    title=f"study {study}: trial history ({len(trials)} trials)")


@app.command("best")
def best(study: str = NAME, db: str = DB, fmt: str = FORMAT) -> None:
    """The best of the study: per workload, the configuration with the lowest mean I/O time over its repeats
    (what iotune run applies), with its gain over the default."""
    from iotune.cli.results_cmd import show_best

    check_format(fmt)
    show_best(db, study, fmt)


@app.command("delete")
def delete(study: str = NAME,
           yes: bool = typer.Option(False, "--yes", "-y", help="Delete without asking."),
           db: str = DB) -> None:
    """Delete a study with all its trials, measurements and models (asks first unless --yes)."""
    from iotune.store import Store
    from iotune.store.engine import masked

    terminal = Terminal()
    with Store(db, create=False) as store:
        record = _record(store, study)
        trials = len(store.trial_states(record.id))
        models = len(store.list_models(study))
        what = f"study {study!r} ({trials} trials, {models} models) from {masked(store.url)}"
        if not yes:
            if not sys.stdin.isatty():
                raise IotuneError(f"deleting {what} needs confirmation: add --yes")
            if not typer.confirm(f"delete {what}?", default=False, err=True):
                terminal.info("nothing deleted")
                return
        store.delete_study(study)
    terminal.success(f"deleted {what}")


@app.command("rename")
def rename(study: str = NAME, new_name: str = typer.Argument(..., help="The new name."), db: str = DB) -> None:
    """Rename a study; its trials and models stay with it, and so do its application runs (<study>-runs)."""
    from iotune.store import Store

    terminal = Terminal()
    with Store(db, create=False) as store:
        _record(store, study)
        runs = store.get_study(f"{study}-runs")
        if runs is not None and store.get_study(f"{new_name}-runs") is not None:
            raise IotuneError(f"study {new_name}-runs already exists: the application runs of {study!r} "
                              f"({study}-runs) could not follow it")
        store.rename_study(study, new_name)
        if runs is not None:
            store.update_settings(store.rename_study(f"{study}-runs", f"{new_name}-runs").id,
                                  {"tuning_study": new_name})
    terminal.success(f"renamed study {study!r} to {new_name!r}"
                     + (f" (and its application runs to {new_name}-runs)" if runs is not None else ""))


@app.command("models")
def models(study: str = typer.Option(None, "--study", "-s", help="Only this study's models (default: all)."),
           db: str = DB, fmt: str = FORMAT) -> None:
    """The trained models in the store: study, name, predictor, target, samples and cross-validated quality."""
    from iotune.cli.model_quality import TARGET_UNITS
    from iotune.store import open_reader

    check_format(fmt)
    with open_reader(db) as store:
        if study is not None:
            _record(store, study)
        found = store.list_models(study)
    rows = []
    for m in found:
        cv = (m.metrics or {}).get("cv") or {}
        r2 = cv.get("r2")
        rows.append([m.study, m.name, m.predictor, m.target, m.n_samples, None if r2 is None else round(r2, 3),
                     None if cv.get("mae") is None else f"{cv['mae']:.4g} {TARGET_UNITS.get(m.target, '')}".strip(),
                     None if r2 is None else r2 < 0, m.created_at[:19]])
    Terminal().emit(["study", "model", "predictor", "target", "samples", "cv r2", "cv mae", "worse than mean",
                     "created"], rows, fmt, title="trained models")
