"""IOR's JSON output as a measurement source: each repetition of each IOR test becomes a stored trial.

The study's space is built from the runs themselves: one workload parameter
per benchmark field (api, processes, block_size, ...) with the values seen,
and one system parameter per MPI-IO hint that some run passed to
MPI_File_open (read from the ``.log`` beside the JSON, IOR's
``--mpiio.showHints`` text output; the JSON does not record hints).  A run
that did not pass a hint has the level ``unset`` for it.  What each field
means, how fsync is timed and how reads met the page cache are
:func:`iotune.bench.ior.parse_ior_json`'s (IOR's data packet types are
labelled by what they write, reads by what IOR's parameters tell).  Importing the same
IOR output twice adds nothing: each repetition is identified by the IOR start
time, command line and repetition number.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from iotune.bench.ior import parse_ior_hints_log, parse_ior_json
from iotune.errors import IotuneError
from iotune.importers.ior_checks import MAX_LOG_BYTES, read_ior_text, read_text
from iotune.records import BenchmarkSpec, Measurement
from iotune.space import Space

UNSET = "unset"
_FIELDS = (("api", "categorical"), ("processes", "integer"), ("block_size", "size"), ("transfer_size", "size"),
           ("segment_count", "integer"), ("file_per_process", "boolean"), ("collective", "boolean"),
           ("operation", "categorical"), ("fsync", "boolean"), ("data_pattern", "categorical"))


@dataclass
class IorRun:
    """One IOR test of one file: its benchmark, the hints it passed, its repetitions."""

    source: Path
    spec: BenchmarkSpec
    hints: dict[str, str]
    measurements: list[Measurement]


@dataclass
class IorImport:
    study: str
    runs: int
    trials_added: int
    trials_duplicate: int


def read_ior_runs(path: Path) -> list[IorRun]:
    """Parse one IOR JSON file, with hints from the ``.log`` beside it when there is one."""
    path = Path(path)
    tests = parse_ior_json(read_ior_text(path))
    log = path.with_suffix(".log")
    passed, returned = [], []
    if log.is_file():
        text = read_text(log, MAX_LOG_BYTES, "IOR text output", errors="replace")
        passed, returned = parse_ior_hints_log(text, requested=True), parse_ior_hints_log(text)
    runs = []
    for spec, measurements in tests:
        hints = passed[0] if passed else {}
        opens_per_repetition = max(1, len(measurements[0].phases)) if measurements else 1
        for index, measurement in enumerate(measurements):
            measurement.hints_requested = dict(hints)
            if len(tests) == 1 and len(returned) >= len(measurements) * opens_per_repetition:
                measurement.hints_in_effect = returned[index * opens_per_repetition]
            measurement.extra["source"] = f"{path.name}#{index}"
        runs.append(IorRun(path, spec, hints, measurements))
    return runs


def _levels(values) -> list:
    return sorted(set(values), key=lambda v: (str(type(v)), v))


def space_for(runs: list[IorRun], name: str) -> Space:
    parameters = []
    for field, kind in _FIELDS:
        levels = _levels(getattr(run.spec, field) for run in runs)
        parameters.append({"name": field, "type": kind, "levels": levels, "role": "workload",
                           "layer": "mpiio" if field == "collective" else "application"})
    for key in sorted({k for run in runs for k in run.hints}):
        levels = [UNSET] + _levels(run.hints[key] for run in runs if key in run.hints and run.hints[key] != UNSET)
        parameters.append({"name": key, "type": "categorical", "levels": levels, "role": "system",
                           "layer": "mpiio", "hint": key})
    return Space.from_dict({"name": name, "description": "imported IOR runs", "parameters": parameters},
                           source="IOR import")


BATCH = 2000
"""Trials stored per commit: a killed import keeps whole batches, and a re-run skips what they hold."""


def import_ior(store, paths: list[Path], study_name: str, platform: dict | None = None,
               progress=None) -> IorImport:
    """Store every repetition of every IOR test in ``paths`` as a COMPLETE trial of ``study_name``.

    ``progress(done, total)``, when given, is called after each batch of trials is committed.
    """
    if not paths:
        raise IotuneError("no IOR JSON files given")
    runs = [run for path in paths for run in read_ior_runs(path)]
    if not runs:
        raise IotuneError(f"no IOR tests found in {', '.join(map(str, paths))}")
    space = space_for(runs, study_name)
    study = store.get_study(study_name)
    if study is None:
        study = store.create_study(study_name, space.to_yaml(), space.hash,
                                   {"source": "ior-json", "files": [str(p) for p in paths]},
                                   description="imported IOR runs")
    elif study.space_hash != space.hash:
        raise IotuneError(f"study {study_name!r} holds runs with other parameters or levels than these IOR "
                          "files; import them into a new --study")
    existing = {(key, extra.get("ior_began"), command, extra.get("source"))
                for key, command, extra in store.trial_sources(study.id)}
    next_repeat: dict[str, int] = {}
    for config_key, repeat in store.trial_states(study.id):
        next_repeat[config_key] = max(next_repeat.get(config_key, 0), repeat + 1)
    platform_id = store.register_platform(platform) if platform else None
    total = sum(len(run.measurements) for run in runs)
    added = duplicate = 0
    batch: list[tuple] = []

    def commit() -> None:
        store.add_trials(study.id, batch)
        batch.clear()
        if progress is not None:
            progress(added + duplicate, total)

    for run in runs:
        values = {field: getattr(run.spec, field) for field, _ in _FIELDS}
        values.update({p.name: run.hints.get(p.name, UNSET) for p in space.system_parameters})
        configuration = space.configuration(values)
        config, benchmark = configuration.to_dict(), run.spec.to_dict()
        for measurement in run.measurements:
            identity = (configuration.key, measurement.extra.get("ior_began"), measurement.command,
                        measurement.extra.get("source"))
            if identity in existing:
                duplicate += 1
                continue
            repeat = next_repeat.get(configuration.key, 0)
            next_repeat[configuration.key] = repeat + 1
            batch.append((config, configuration.key, configuration.workload_key, repeat, platform_id, benchmark,
                          measurement))
            existing.add(identity)
            added += 1
            if len(batch) >= BATCH:
                commit()
    commit()
    return IorImport(study_name, len(runs), added, duplicate)
