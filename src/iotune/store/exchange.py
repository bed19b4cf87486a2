"""Export a store to a file and merge such a file into another store.

JSON is the exchange format and keeps everything::

    {"format": "iotune-export", "version": 1, "exported_at": ..., "source": {"host", "db"},
     "platforms": [{"fingerprint", "info"}],
     "studies": [{name, created_at, description, space_hash, space_yaml, settings, origin,
                  "trials": [{uid, config, config_key, ..., "platform": fingerprint,
                              "measurements": [{phase, bytes, seconds, ...}]}]}]}

CSV and Parquet hold the flat rows of ``Store.rows()`` (see ``flat``); they
import too, with the losses listed there.  Every imported field is checked
(:mod:`iotune.store.import_checks`); the first bad record stops the import and
nothing of it is kept.
"""

from __future__ import annotations

import io
import json
import math
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from iotune.errors import SpaceError, StoreError
from iotune.output import output_stream
from iotune.spec.mapping import hint_key, hint_value
from iotune.store import flat, json_stream, queries
from iotune.store import import_checks as checks
from iotune.store.base import BulkImport, Storage
from iotune.store.engine import masked
from iotune.store.records import ImportReport, StudyRecord

FORMATS = ("json", "csv", "parquet")
FORMAT_NAME = "iotune-export"
FORMAT_VERSION = 1



# export


def export(storage: Storage, path: str | os.PathLike, fmt: str = "json", study: str | int | None = None) -> None:
    """Write a store (or one study, by name or id) to ``path``: "json" (everything but models), "csv" or "parquet"
    (flat rows)."""
    if fmt not in FORMATS:
        raise StoreError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    records = storage.list_studies()
    if study is not None:
        records = [r for r in records if (r.name if isinstance(study, str) else r.id) == study]
        if not records:
            raise StoreError(f"no study {study!r} in {masked(storage.url)}")
    if fmt == "json":
        write_json(path, export_document(storage, records))
    else:
        write_rows(path, fmt, export_rows(storage, records))


def export_document(storage: Storage, records: list[StudyRecord]) -> dict:
    """The full JSON export of the studies ``records`` as a dict."""
    study_docs = []
    platform_docs: dict[int, dict] = {}
    for record in records:
        study_trials = storage.trials(record.id)
        wanted = {t.platform_id for t in study_trials if t.platform_id is not None} - set(platform_docs)
        for platform_id, info in sorted(storage.platforms(wanted).items()):
            platform_docs[platform_id] = {"fingerprint": queries.fingerprint(info), "info": info}
        fingerprints = {i: doc["fingerprint"] for i, doc in platform_docs.items()}
        study_docs.append({
            "name": record.name,
            "created_at": record.created_at,
            "description": record.description,
            "space_hash": record.space_hash,
            "space_yaml": record.space_yaml,
            "spec_yaml": record.spec_yaml,
            "settings": record.settings,
            "origin": record.origin,
            "trials": [_trial_doc(t, fingerprints) for t in study_trials],
        })
    return {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "exported_at": queries.now(),
        "source": storage.source(),
        "platforms": [platform_docs[i] for i in sorted(platform_docs)],
        "studies": study_docs,
    }


def _trial_doc(record, fingerprints: dict[int, str]) -> dict:
    measurements = []
    for phase in record.phases:
        values = queries.phase_values(0, phase)
        del values["trial_id"]
        measurements.append(values)
    return {
        "uid": record.uid,
        "config_key": record.config_key,
        "workload_key": record.workload_key,
        "config": record.config,
        "repeat": record.repeat,
        "state": record.state,
        "error": record.error,
        "started_at": record.started_at,
        "finished_at": record.finished_at,
        "runner": record.runner,
        "command": record.command,
        "hints_requested": record.hints_requested,
        "hints_in_effect": record.hints_in_effect,
        "read_cache_mode": record.read_cache_mode,
        "wall_seconds": record.wall_seconds,
        "extra": record.extra,
        "benchmark": record.benchmark,
        "imported_from": record.imported_from,
        "platform": fingerprints.get(record.platform_id),
        "measurements": measurements,
    }


def write_json(path: str | os.PathLike, document: dict) -> None:
    """The export document as JSON at ``path`` (:func:`iotune.output.output_stream`: atomic, or written through)."""
    with output_stream(path, "export") as stream:
        text = io.TextIOWrapper(stream, encoding="utf-8")
        json.dump(document, text, indent=1)
        text.flush()
        text.detach()


def write_rows(path: str | os.PathLike, fmt: str, rows: list[dict]) -> None:
    """Flat rows as CSV or Parquet at ``path``, as :func:`write_json` writes."""
    with output_stream(path, "export") as stream:
        flat.write_rows(stream, fmt, rows)


def export_rows(storage: Storage, records: list[StudyRecord]) -> list[dict]:
    """The flat rows of an export: ``Storage.rows`` with each study's own columns (space, spec, settings,
    description) filled on its first row, so the file imports back as a study that can be used."""
    rows = []
    for record in records:
        study_rows = storage.rows(record.id)
        for index, row in enumerate(study_rows):
            first = index == 0
            row["study_space_yaml"] = record.space_yaml if first else None
            row["study_spec_yaml"] = record.spec_yaml if first else None
            row["study_settings"] = queries.dumps(record.settings, "study settings") if first else None
            row["study_description"] = record.description if first else None
        rows.extend(study_rows)
    return rows


# import

MAX_IMPORT_BYTES = 512 * 2**20
"""Largest export read (512 MiB, a few hundred thousand trials); export a large store one study at a time."""


STREAM_ABOVE = 16 << 20
"""JSON exports larger than this (16 MiB) are read a trial at a time (:mod:`iotune.store.json_stream`), which
needs the order iotune writes; smaller ones are decoded whole, in any order."""


def read_document(handle, path: Path, size: int, spec=None, study: str | None = None):
    """The JSON, CSV or Parquet export open in binary ``handle`` in the JSON export's shape, its studies and their
    trials read as the import takes them, and a function giving the bytes read so far; StoreError if it is none
    of those.

    ``spec`` (a :class:`~iotune.spec.CampaignSpec`) and ``study`` let a compact CSV, one without the
    study, config_key and state columns (``data/ground_truth/*.csv``), be read as that spec's study.
    """
    head = handle.read(4096)
    handle.seek(0)
    if head.startswith(b"PAR1"):
        return flat.rows_document(*flat.read_parquet(path), path, spec=spec, study=study), lambda: size
    if head.lstrip()[:1] != b"{":
        bounded = _Bounded(handle, path)
        text = io.TextIOWrapper(io.BufferedReader(bounded), encoding="utf-8", newline="")
        return flat.rows_document(*flat.read_csv(text, path), path, spec=spec, study=study), lambda: bounded.taken
    if size > STREAM_ABOVE:
        stream = json_stream.JsonStream(handle, path, MAX_IMPORT_BYTES)
        document = json_stream.read_export(stream)
        position = lambda: stream.read  # noqa: E731
    else:
        data = handle.read(MAX_IMPORT_BYTES + 1)
        if len(data) > MAX_IMPORT_BYTES:
            raise StoreError(f"{path} is more than the {MAX_IMPORT_BYTES} bytes an import reads")
        try:
            document = json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            raise StoreError(f"{path} is not valid JSON (truncated or corrupt?): {exc}") from None
        except RecursionError:
            raise StoreError(f"{path} nests JSON too deeply to be an iotune export") from None
        del data
        position = lambda: size  # noqa: E731
    if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
        raise StoreError(f"{path} is JSON but not an iotune export (no \"format\": \"{FORMAT_NAME}\")")
    version = document.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version > FORMAT_VERSION or version < 1:
        raise StoreError(f"{path} is iotune export version {version!r}; this iotune reads version {FORMAT_VERSION}")
    if spec is not None or study is not None:
        raise StoreError(f"{path} is a full iotune export: it carries its studies and spaces; import it without "
                         "--spec and --study")
    return document, position


class _Bounded(io.RawIOBase):
    """A binary file read through, that fails once more than MAX_IMPORT_BYTES were read (the file may grow)."""

    def __init__(self, handle, path: Path):
        self._handle, self._path, self.taken = handle, path, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        count = self._handle.readinto(buffer)
        self.taken += count or 0
        if self.taken > MAX_IMPORT_BYTES:
            raise StoreError(f"{self._path} is more than the {MAX_IMPORT_BYTES} bytes an import reads")
        return count


def import_file(storage: Storage, path: str | os.PathLike, spec=None, study: str | None = None,
                progress=None) -> ImportReport:
    """Merge an export (JSON, or the flat CSV/Parquet rows) into ``storage``, every field checked, all or nothing.

    The first malformed record raises one StoreError line naming it, and nothing
    of the file is kept.  ``spec`` (a :class:`~iotune.spec.CampaignSpec`) and
    ``study`` read a compact CSV (rows without study, config_key and state, as
    ``data/ground_truth/*.csv``) as measurements of that spec.
    ``progress(done, total)``, when given, is called as trials are stored.
    """
    path = Path(path)
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # before opening it: a FIFO nobody writes would block the open
            raise StoreError(f"{path} is not a regular file; give an iotune export (JSON, CSV or Parquet)")
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise StoreError(f"{path} is not a regular file; give an iotune export (JSON, CSV or Parquet)")
            if info.st_size > MAX_IMPORT_BYTES:
                raise StoreError(f"{path} is {info.st_size} bytes, more than the {MAX_IMPORT_BYTES} an import "
                                 "reads; export one study at a time (iotune export --study NAME)")
            if progress is not None:
                progress(0, info.st_size)
            document, position = read_document(handle, path, info.st_size, spec=spec, study=study)
            with storage.bulk_import() as bulk:
                report = _Import(bulk, os.path.abspath(path), progress).apply(document, position, info.st_size)
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    return report


class _Target:
    """A local study that imported trials go into: its space, and its id, made on first use."""

    def __init__(self, space, make):
        self.space = space
        self._make = make
        self._id = None

    def id(self) -> int:
        if self._id is None:
            self._id = self._make()
        return self._id


class _Import:
    """One import: where the records go, what has been seen, where the first bad record was."""

    def __init__(self, bulk: BulkImport, path: str, progress=None):
        self.bulk = bulk
        self.path = path
        self.report = ImportReport()
        self.where = ""
        self.progress = progress
        self.pending: list[tuple] = []
        self.seen: set[str] = set()
        self.repeats: dict[int, dict[str, set[int]]] = {}
        self.targets: dict[tuple, _Target] = {}
        self.configurations: dict[tuple, tuple] = {}
        self.position, self.size = (lambda: 0), 0

    def fail(self, message: str) -> StoreError:
        return StoreError(f"{self.path}: {self.where + ': ' if self.where else ''}{message}")

    def apply(self, document: dict, position, size: int) -> ImportReport:
        """Merge ``document``; ``position()`` says how many of the file's ``size`` bytes were read, for progress."""
        self.position, self.size = position, size
        try:
            return self._apply(document)
        except checks.BadRecord as exc:
            raise self.fail(str(exc)) from None
        except SpaceError as exc:
            raise self.fail(str(exc).splitlines()[0]) from None

    def _apply(self, document: dict) -> ImportReport:
        source = document.get("source") or {}
        if not isinstance(source, dict):
            raise checks.BadRecord(f"source must be an object, got {type(source).__name__}")
        host = checks.name(source.get("host") or "unknown", "source host")
        database = checks.text(source.get("db"), "source db", line=True)
        provenance = f"{self.path} (host {host}, db {database or 'unknown'})"
        platform_ids = {}
        for index, platform in enumerate(_items(document.get("platforms", []), "platforms")):
            self.where = f"platform #{index + 1}"
            fingerprint = checks.name(platform.get("fingerprint"), "fingerprint", limit=40)
            platform_ids[fingerprint] = self._platform(platform.get("info"))
        studies_list = document.get("studies")
        if studies_list is None:
            raise checks.BadRecord("the export has no \"studies\" list")
        for index, study in enumerate(_items(studies_list, "studies")):
            self.where = f"study #{index + 1}"
            label = checks.name(study.get("name"), "study name")
            self.where = f"study {label!r}"
            space = checks.study_space(study, self.where)
            known = (label, study.get("space_hash"))
            if known not in self.targets or space is not None and self.targets[known].space is None:
                self.targets[known] = self._target_study(study, space, host, provenance)
            target = self.targets[known]
            number = 0
            for number, trial in enumerate(_items(study.get("trials") or [], "trials"), start=1):
                row = trial.get("_row")
                uid = trial.get("uid")
                self.where = (f"study {label!r}, " + (f"row {row}" if row else f"trial #{number}")
                              + (f" (uid {uid})" if isinstance(uid, str) and len(uid) <= 40 else ""))
                self._trial(target, trial, platform_ids, provenance)
            if not number:
                target.id()
        self.where = ""
        self.flush()
        return self.report

    def _platform(self, info) -> int:
        info = checks.document(info, "platform info", optional=False)
        for key, value in info.items():
            if value is not None and (isinstance(value, (dict, list)) or
                                      (isinstance(value, float) and not math.isfinite(value))):
                raise checks.BadRecord(f"platform info {key} must be a plain value, got {value!r}")
        return self.bulk.platform(info)

    def _target_study(self, study: dict, space, host: str, provenance: str) -> _Target:
        """The local study the file's study goes into: same name and space merges, else ``name@host``.

        A new study is created when its first trial is added (or at once when the
        file's study has no trials), so a file whose trials are all there already
        adds no empty studies.
        """
        name = study["name"]
        space_hash = checks.name(study.get("space_hash"), "space_hash", limit=128)
        settings = checks.document(study.get("settings"), "settings") or {}
        description = checks.text(study.get("description"), "description") or ""
        created_at = checks.timestamp(study.get("created_at"), "created_at")
        origin = checks.text(study.get("origin"), "origin")
        spec_yaml = checks.text(study.get("spec_yaml"), "spec_yaml", limit=4 << 20)
        for attempt in range(1, 1000):
            candidate = name if attempt == 1 else f"{name}@{host}" if attempt == 2 else f"{name}@{host}-{attempt - 1}"
            row = self.bulk.study(candidate)
            if row is not None and row.space_hash != space_hash:
                continue
            if candidate != name:
                self.report.renamed[name] = candidate
            if row is not None:
                self.report.studies_merged += 1
                local = _local_space(row)
                self._note_settings(candidate, local if local is not None else space, settings)
                return _Target(local if local is not None else space, lambda study_id=row.id: study_id)
            if space is None:
                raise checks.BadRecord("the file does not carry the study's space (an export of an older iotune, or "
                                       "flat rows without the study_space_yaml column), and no local study "
                                       f"{candidate!r} has it: export it again with this iotune, or as JSON")
            self._note_settings(candidate, space, settings)

            def create(candidate=candidate) -> int:
                again = self.bulk.study(candidate)
                if again is not None and again.space_hash == space_hash:
                    return again.id
                self.report.studies_added += 1
                return self.bulk.add_study(
                    name=candidate,
                    space_yaml=str(study.get("space_yaml") or ""),
                    space_hash=space_hash,
                    settings=settings,
                    description=description,
                    created_at=created_at,
                    origin=provenance if not origin else f"{provenance} <- {origin}",
                    spec_yaml=spec_yaml,
                )

            return _Target(space, create)
        raise checks.BadRecord(f"cannot find a free local name for study {name!r} from {host}")

    def _note_settings(self, study: str, space, settings: dict) -> None:
        """Record for the user which hints and variables the study will set when it runs."""
        sets = self.report.settings.setdefault(study, {"hints": {}, "env": {}})
        if space is not None:
            for parameter in space.parameters:
                key = hint_key(parameter)
                target = sets["hints"].setdefault(key, []) if key else \
                    sets["env"].setdefault(parameter.env, []) if parameter.env else None
                if target is not None:
                    for level in parameter.levels:
                        _note(target, hint_value(level))
        fixed = settings.get("benchmark")
        if not isinstance(fixed, dict):
            fixed = {}
        for kind in ("hints", "env"):
            values = fixed.get(kind)
            if not isinstance(values, dict):
                values = {}
            for key, value in values.items():
                _note(sets[kind].setdefault(str(key), []), str(value))

    def _trial(self, target: _Target, trial: dict, platform_ids: dict, provenance: str) -> None:
        report, space = self.report, target.space
        state = trial.get("state")
        if state in checks.UNFINISHED_STATES:
            report.trials_skipped_running += 1
            return
        if state not in checks.IMPORTED_STATES:
            raise checks.BadRecord(f"trial state must be one of {', '.join(checks.IMPORTED_STATES)} (PENDING and "
                                   f"RUNNING ones are skipped), got {checks._show(state)}")
        uid = checks.name(trial.get("uid"), "trial uid", limit=32)
        config = trial.get("config")
        if "_row" in trial and isinstance(config, dict):
            # Flat rows hold a column per parameter of every study in the file: an empty one that is not a
            # parameter of this study belongs to another.
            names = set() if space is None else {p.name for p in space.parameters}
            config = {k: v for k, v in config.items() if v is not None or k in names}
        config, config_key, workload_key, config_json = self._configuration(target, config, trial)
        repeat = checks.count(trial.get("repeat"), "repeat", maximum=checks.MAX_REPEAT)
        phases = checks.phases(list(_items(trial.get("measurements") or [], "measurements")), "measurement")
        if state == "COMPLETE" and not phases:
            raise checks.BadRecord("a COMPLETE trial must have at least one measured phase")
        platform = trial.get("platform")
        if platform is not None and platform not in platform_ids and isinstance(trial.get("_platform"), dict):
            platform_ids[platform] = self._platform(trial["_platform"])
        if platform is not None and platform not in platform_ids:
            raise checks.BadRecord(f"trial names platform {checks._show(platform)} that the file does not describe")
        values = {
            "error": checks.text(trial.get("error"), "error"),
            "started_at": checks.timestamp(trial.get("started_at"), "started_at"),
            "finished_at": checks.timestamp(trial.get("finished_at"), "finished_at"),
            "runner": checks.text(trial.get("runner"), "runner", limit=64, line=True),
            "command": checks.text(trial.get("command"), "command"),
            "read_cache_mode": checks.text(trial.get("read_cache_mode"), "read_cache_mode", limit=64, line=True),
            "hints_requested_json": queries.dumps(checks.hints(trial.get("hints_requested"), "hints_requested"),
                                                  "hints requested"),
            "hints_in_effect_json": queries.dumps(checks.hints(trial.get("hints_in_effect"), "hints_in_effect"),
                                                  "hints in effect"),
            "wall_seconds": checks.seconds(trial.get("wall_seconds"), "wall_seconds", optional=True),
            "extra_json": queries.dumps(checks.document(trial.get("extra"), "extra") or {}, "extra"),
        }
        bench = checks.benchmark(trial.get("benchmark"), "benchmark")
        earlier = checks.text(trial.get("imported_from"), "imported_from")
        if uid in self.seen:
            if "_row" in trial:
                raise checks.BadRecord(f"trial {uid} has rows apart from each other; an export writes a trial's "
                                       "rows one after another")
            report.trials_duplicate += 1
            return
        self.seen.add(uid)
        self.pending.append((target, phases, dict(
            uid=uid,
            platform_id=platform_ids.get(platform),
            config_key=config_key,
            workload_key=workload_key,
            config_json=config_json,
            repeat=repeat,
            state=state,
            benchmark_json=None if bench is None else queries.dumps(bench, "benchmark"),
            imported_from=provenance if not earlier else f"{provenance} <- {earlier}",
            **values,
        )))
        if len(self.pending) >= BATCH:
            self.flush()

    def _configuration(self, target: _Target, config, trial: dict) -> tuple[dict, str, str, str]:
        """The checked configuration, its keys and its JSON (``checks.configuration``), each distinct one checked
        once: an export holds a configuration once per repeat, and checking it was a third of an import's time."""
        try:
            seen = (id(target), trial.get("config_key"), trial.get("workload_key"),
                    tuple((k, type(v), v) for k, v in config.items()))
            hash(seen)
        except (AttributeError, TypeError):  # not a mapping of plain values: checks.configuration says what
            seen = None
        found = self.configurations.get(seen) if seen is not None else None
        if found is None:
            found = checks.configuration(config, trial.get("config_key"), trial.get("workload_key"), target.space)
            found = (*found, queries.dumps(found[0], "configuration"))
            if seen is not None:
                if len(self.configurations) >= 4096:
                    self.configurations.clear()
                self.configurations[seen] = found
        return found

    def flush(self) -> None:
        """Store the checked trials waiting in ``pending``: duplicates skipped, taken repeats renumbered, then
        one insert of the trials and one of their phases (a statement per trial made imports 10x slower)."""
        report, pending = self.report, self.pending
        self.pending = []
        present = self.bulk.present([row["uid"] for _, _, row in pending])
        rows, phases = [], {}
        for target, measured, row in pending:
            if row["uid"] in present:
                report.trials_duplicate += 1
                continue
            row["study_id"] = study_id = target.id()
            taken = self._taken(study_id).setdefault(row["config_key"], set())
            if row["repeat"] in taken:
                row["repeat"] = max(taken) + 1
                report.trials_conflicting += 1
            taken.add(row["repeat"])
            rows.append(row)
            phases[row["uid"]] = measured
        self.bulk.add_trials(rows, phases)
        report.trials_added += len(rows)
        if self.progress is not None:
            self.progress(self.position(), self.size)

    def _taken(self, study_id: int) -> dict[str, set[int]]:
        """{config_key: repeats} of a local study, read once per import."""
        if study_id not in self.repeats:
            taken: dict[str, set[int]] = {}
            for config_key, repeat in self.bulk.repeats(study_id):
                taken.setdefault(config_key, set()).add(repeat)
            self.repeats[study_id] = taken
        return self.repeats[study_id]


BATCH = 2000
"""Checked trials inserted per statement."""

SHOWN_VALUES = 7
"""Values noted per hint or variable: the import summary shows six and says when there are more."""


def _note(values: list[str], value: str) -> None:
    """Add ``value`` to the few noted in ``values`` (a space of 100,000 levels must not make this quadratic)."""
    if len(values) < SHOWN_VALUES and value not in values:
        values.append(value)


def _local_space(record: StudyRecord):
    """The space of a local study, or None when it has none that parses (older or hand-made stores)."""
    if not (record.space_yaml or "").strip():
        return None
    try:
        return record.space
    except SpaceError:
        return None


def _items(value, what: str) -> Iterator[dict]:
    """The entries of a list (or of a list being read, :mod:`iotune.store.json_stream`), each checked to be an
    object as it is taken."""
    if not isinstance(value, (list, Iterator)):
        raise checks.BadRecord(f"{what} must be a list, got {type(value).__name__}")
    for index, item in enumerate(value, start=1):
        if not isinstance(item, dict):
            raise checks.BadRecord(f"{what} entry #{index} must be an object, got {type(item).__name__}")
        yield item
