"""``iotune recommend`` for the time objective: the one decision (:mod:`iotune.recommend.decision`) shown."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from iotune.cli.options import DEFAULT_MEANING
from iotune.cli.terminal import Terminal, check_format
from iotune.errors import IotuneError, SpaceError


def study_decision(db: str | None, study: str, values: dict, constraints=()):
    """The study's space and the decision for workload ``values`` from its runs (``constraints``: extra rules
    the configurations considered must satisfy)."""
    from iotune.recommend.answer import decide
    from iotune.space import Space
    from iotune.store import open_reader
    from iotune.stored import StoredStudy

    with open_reader(db) as store:
        opened = StoredStudy.open(store, study)
        trials = [t for t in opened.trials() if t.runner != "command"]
    space = opened.space
    if constraints:
        screen = Space(space.name, space.parameters, space.constraints + tuple(constraints), space.description,
                       source="constraint")
        trials = [t for t in trials if _allowed(screen, t.config)]
        if not trials:
            raise IotuneError(f"no measured configuration of study {study!r} satisfies --constraint "
                              f"{' and '.join(constraints)}")
    command = "iotune tune SPEC.yaml --study " + shlex.quote(study) + " --budget N --workload " + shlex.quote(
        ",".join(f"{k}={v}" for k, v in values.items()))
    decision, failure = None, None
    try:
        decision = decide(space, trials, values, tune_command=command)
    except SpaceError as error:  # a value this space cannot take: another study may have measured it
        failure = error
    if (decision is None or decision.basis != "measured") and not constraints:
        elsewhere = measured_elsewhere(db, opened, values)
        if elsewhere is not None:
            return elsewhere
    if decision is None:
        raise IotuneError(f"workload {failure}")
    return space, decision


def measured_elsewhere(db: str | None, opened, values: dict):
    """(space, decision) from another study of the store that measured workload ``values``
    (:func:`iotune.recommend.elsewhere.measured_elsewhere`); None when no study did."""
    from iotune.recommend.elsewhere import measured_elsewhere as from_store
    from iotune.store import open_reader

    with open_reader(db) as store:
        return from_store(store, opened, values)


def _allowed(space, config: dict) -> bool:
    try:
        space.configuration(config)
    except SpaceError:
        return False
    return True


def hint_forms(hints: dict, directory: str = "DIR") -> dict:
    """The four ways to apply MPI-IO ``hints``, as exact strings."""
    from iotune.apply.forms import ior_env, lfs_setstripe, mpich_mpiio_hints, romio_hints_file

    return {"romio_hints": romio_hints_file(hints), "mpich_mpiio_hints": mpich_mpiio_hints(hints),
            "ior_env": ior_env(hints), "lfs_setstripe": lfs_setstripe(hints, directory)}


def prepare_hints_dir(hints_dir: Path) -> Path:
    """The ``--hints-dir`` directory, made if needed and writable, checked before anything is computed."""
    directory = Path(hints_dir)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise IotuneError(f"--hints-dir {hints_dir}: cannot make that directory "
                          f"({'a file of that name exists' if directory.is_file() else exc.strerror or exc})") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise IotuneError(f"--hints-dir {hints_dir}: the directory is not writable")
    return directory


def describe(space, config: dict, changed: dict | None = None) -> str:
    """``name=value`` of the system parameters set, each hint not in effect followed by what it ran as."""
    from iotune.spec.mapping import read_back_key

    changed = changed or {}
    parts = []
    for p in space.system_parameters:
        if config.get(p.name) is None:
            continue
        ran = changed.get(read_back_key(p) or "")
        parts.append(f"{p.name}={p.format(config[p.name])}" + (f" (ran as {ran[1]})" if ran else ""))
    return " ".join(parts) or "-"


def run_decision(db: str | None, study: str, values: dict, top: int = 3, hints_dir: Path | None = None,
                 fmt: str = "table", constraints=()):
    """Print the decision for ``values`` (measured configurations ranked, or the prediction, or what to run)."""
    from iotune.recommend.decision import apply_hints

    check_format(fmt)
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise IotuneError(f"--top must be a positive integer, got {top!r}")
    directory = prepare_hints_dir(hints_dir) if hints_dir is not None else None
    terminal = Terminal()
    space, decision = study_decision(db, study, values, constraints)
    tied = {space.configuration(c).key for c in decision.tied} if decision.basis == "measured" else set()
    same = {space.configuration(c).key for c in decision.same_in_effect}
    records, rows = [], []
    if decision.basis == "measured":
        for rank, measured in enumerate(decision.ranked[:top], start=1):
            hints = apply_hints(space, measured.config, measured.not_in_effect)
            verdict = "best" if rank == 1 else ("tied" if measured.key in tied else
                                                "unknown" if decision.separated is None else "slower")
            if measured.key in same:
                verdict += ", identical in effect to the best"
            records.append({"rank": rank, "configuration": measured.config, "mean_time_s": measured.mean,
                            "runs": measured.n, "times_s": measured.times,
                            "vs_default": decision.default_time / measured.mean if decision.default_time else None,
                            "verdict": verdict, "not_in_effect": {k: {"asked": a, "in_effect": r}
                                                                  for k, (a, r) in measured.not_in_effect.items()},
                            "hints": hints, "apply": hint_forms(hints)})
            rows.append([rank, describe(space, measured.config, measured.not_in_effect), f"{measured.mean:.4g}",
                         "one run" if measured.n == 1 else str(measured.n),
                         f"{decision.default_time / measured.mean:.2f}x" if decision.default_time else "not measured",
                         verdict])
        columns = ["rank", "configuration", "mean I/O time (s)", "runs", "vs default", "vs the best"]
    elif decision.basis == "transfer":
        forms = hint_forms(decision.apply_hints)
        records.append({"rank": 1, "configuration": decision.best, "predicted_time_s": decision.best_time,
                        "hints": decision.apply_hints, "apply": forms})
        rows.append([1, describe(space, decision.best), f"{decision.best_time:.4g}",
                     f"{decision.gain:.2f}x" if decision.gain else "-"])
        columns = ["rank", "configuration", "predicted I/O time (s)", "vs default (predicted)"]
    else:
        columns = []
    title = "time for " + " ".join(f"{k}={v}" for k, v in values.items())
    if fmt == "json":
        terminal.emit([], [], "json", records={**decision.to_dict(), "candidates": records})
    elif rows:
        terminal.emit(columns, rows, fmt, title=f"{title}: {decision.basis}")
    terminal.info(("recommended: " if decision.best is not None else "no recommendation: ") + decision.message)
    for note in decision.notes:
        terminal.info(note)
    if decision.advice:
        terminal.info(decision.advice)
    if decision.basis == "measured" and decision.recommends_default:
        terminal.info("the default configuration is the fastest measured: nothing to change")
    if decision.best is not None:
        terminal.info(DEFAULT_MEANING)
        if records and records[0]["hints"]:
            terminal.info("apply it: export MPICH_MPIIO_HINTS='" + records[0]["apply"]["mpich_mpiio_hints"] + "'"
                          + (" (the hints as they took effect)" if decision.not_in_effect else ""))
    if directory is not None:
        write_hints_files(directory, records, decision.workload.get("processes", "N"), terminal)
    return decision


def write_hints_files(directory: Path, records: list[dict], processes, terminal: Terminal) -> None:
    """One ROMIO hints file per ranked record in ``directory``, each with the command line that applies it."""
    import shlex

    from iotune.output import write_output

    for record in records:
        path = (directory / f"rank{record['rank']}.hints").resolve()
        write_output(path, record["apply"]["romio_hints"], "hints file")
        terminal.info(f"ROMIO_HINTS={shlex.quote(str(path))} mpiexec -n {processes} ./your_app")
