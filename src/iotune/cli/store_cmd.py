"""``iotune studies|export|import``: the shared training database."""

from __future__ import annotations

from pathlib import Path

import typer

from iotune.cli.options import DB, FORMAT, STUDY
from iotune.cli.terminal import Terminal, check_format
from iotune.errors import IotuneError


def studies(db: str = DB, fmt: str = FORMAT) -> None:
    """List the studies in the store with their trial counts."""
    from iotune.store import open_reader

    check_format(fmt)
    with open_reader(db) as store:
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
    from iotune.store import exchange, open_reader
    from iotune.store.engine import masked

    fmt = fmt or path.suffix.lstrip(".").lower()
    if fmt not in ("json", "csv", "parquet"):
        raise IotuneError(f"export format must be json, csv or parquet, got {fmt!r}")
    with open_reader(db) as store:
        if study and store.get_study(study) is None:
            raise IotuneError(f"no study named {study!r} in {masked(store.url)}")
        exchange.export(store, path, fmt, study=study)
    Terminal().success(f"exported to {path} ({fmt})")


def import_(path: Path = typer.Argument(..., help="An iotune export (JSON, CSV or Parquet), or a ground-truth table "
                                                   "of data/ground_truth/."),
            spec: Path = typer.Option(None, "--spec", help="For a compact CSV (trial_uid, phase and cfg.* columns, "
                                                           "as data/ground_truth/compact.py writes): the spec it "
                                                           "was measured with (default: the .yaml of the same "
                                                           "name beside it)."),
            study: str = typer.Option(None, "--study", "-s", help="For a compact CSV: the study to store it in "
                                                                  "(default: the spec's name)."),
            db: str = DB) -> None:
    """Merge another store's export into this one, skipping trials already present.

    The ground truths of data/ground_truth/ load the same way: a compact CSV with the spec of the same name
    beside it (hints_ground_truth.csv, testbed_ground_truth.csv), and the striping table
    (striping_ground_truth.csv: one study per access pattern, with the specs in striping/ beside it).

    Every field is checked first; a bad record stops the import and nothing of it is kept.  The hints and
    environment variables each imported study sets when it runs are listed, and variables that are not on
    iotune's safe list are named: they are refused at run time unless allowed (--allow-env, IOTUNE_ALLOW_ENV).
    """
    from iotune.importers.ground_truth import import_striping_table, is_striping_table, spec_beside
    from iotune.spec import load_spec
    from iotune.spec.environment import ALLOW_VARIABLE, refused_names
    from iotune.store import Store, exchange

    terminal = Terminal()
    if is_striping_table(path):
        if spec is not None or study is not None:
            raise IotuneError(f"{path} is the striping ground-truth table: its studies and specs are those of "
                              "its patterns (striping/PATTERN.yaml beside it); import it without --spec and --study")
        with Store(db) as store:
            table = import_striping_table(store, path)
        terminal.success(f"imported the striping ground truth {path}: {table.summary()}")
        return
    if spec is None and (beside := spec_beside(path)) is not None:
        terminal.info(f"{path.name} is a compact CSV: reading it with the spec beside it, {beside}")
        spec = beside
    loaded = load_spec(spec) if spec is not None else None
    if study is not None and loaded is None:
        raise IotuneError("--study names the study of a compact CSV and needs --spec (the spec it was measured "
                          "with); a full export carries its own study names")
    with Store(db) as store, terminal.progress(f"importing {path.name} (MiB read)", None) as bar:
        advance = _advancer(bar)
        report = exchange.import_file(store, path, spec=loaded, study=study,
                                      progress=lambda done, total: advance(done >> 20, max(1, -(-total >> 20))))
    for name, sets in report.settings.items():
        for kind, label in (("hints", "MPI-IO hints"), ("env", "environment variables")):
            if sets[kind]:
                listed = "; ".join(f"{_shown(key)} = {' | '.join(map(_shown, values[:6]))}"
                                   f"{' | ...' if len(values) > 6 else ''}" for key, values in sets[kind].items())
                terminal.info(f"study {name!r} sets {label}: {listed}")
        refused = refused_names(sets["env"])
        if refused:
            terminal.warn(f"study {name!r} sets {', '.join(refused)}, not on iotune's list of safe variables: "
                          f"`iotune run` and campaigns refuse it unless you allow it (--allow-env {refused[0]} or "
                          f"{ALLOW_VARIABLE}={refused[0]}) after checking what it does")
    Terminal().success(f"imported {path}: {report.summary()}")


def _advancer(bar):
    """A ``progress(done, total)`` callback that moves ``bar``."""
    shown = 0

    def progress(done: int, total: int) -> None:
        nonlocal shown
        bar.set_total(total)
        bar.advance(steps=done - shown)
        shown = done

    return progress


def _shown(text: str) -> str:
    """Text from an import as it may be printed: control characters escaped, at most 80 characters."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))
    return text if len(text) <= 80 else text[:77] + "..."


def import_ior(paths: list[Path] = typer.Argument(..., help="IOR -O summaryFormat=JSON files (a .log beside each "
                                                             "supplies the hints, from --mpiio.showHints)."),
               study: str = typer.Option("ior", "--study", "-s", help="Study to store the runs in."),
               db: str = DB) -> None:
    """Store IOR's JSON output as trials: every repetition, every phase, with hints when the .log has them."""
    from iotune.importers.ior import import_ior as run_import
    from iotune.store import Store

    terminal = Terminal()
    with Store(db) as store, terminal.progress("importing IOR repetitions", None) as bar:
        report = run_import(store, paths, study, progress=_advancer(bar))
    terminal.success(f"{report.runs} IOR tests: {report.trials_added} trials added to study {report.study!r}, "
                       f"{report.trials_duplicate} already there")
