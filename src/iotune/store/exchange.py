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
from pathlib import Path

import sqlalchemy as sa

from iotune.errors import SpaceError, StoreError
from iotune.spec.mapping import hint_key, hint_value
from iotune.store import flat, queries
from iotune.store import import_checks as checks
from iotune.store.records import ImportReport
from iotune.store.schema import measurements, platforms, studies, trials

FORMATS = ("json", "csv", "parquet")
FORMAT_NAME = "iotune-export"
FORMAT_VERSION = 1



# export


def export_document(conn: sa.Connection, study_id: int | None, source: dict) -> dict:
    """The full JSON export of one study (or all) as a dict."""
    query = sa.select(studies).order_by(studies.c.name)
    if study_id is not None:
        query = query.where(studies.c.id == study_id)
    study_rows = conn.execute(query).all()
    records = queries.select_trials(conn, study_id=study_id)
    platform_ids = {r.platform_id for r in records if r.platform_id is not None}
    fingerprints: dict[int, str] = {}
    platform_docs = []
    if platform_ids:
        for row in conn.execute(sa.select(platforms).where(platforms.c.id.in_(platform_ids)).order_by(platforms.c.id)):
            fingerprints[row.id] = row.fingerprint
            platform_docs.append({"fingerprint": row.fingerprint, "info": queries.loads(row.info_json, {})})
    by_study: dict[int, list] = {}
    for record in records:
        by_study.setdefault(record.study_id, []).append(_trial_doc(record, fingerprints))
    return {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "exported_at": queries.now(),
        "source": source,
        "platforms": platform_docs,
        "studies": [
            {
                "name": row.name,
                "created_at": row.created_at,
                "description": row.description,
                "space_hash": row.space_hash,
                "space_yaml": row.space_yaml,
                "spec_yaml": row.spec_yaml,
                "settings": queries.loads(row.settings_json, {}),
                "origin": row.origin,
                "trials": by_study.get(row.id, []),
            }
            for row in study_rows
        ],
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


def _atomic_write(path: str | os.PathLike, write) -> None:
    """Write through ``write(tmp_path)`` then rename, so a crash never leaves half a file at ``path``."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, target)
    except OSError as exc:
        raise StoreError(f"cannot write export {target}: {exc.strerror or exc}") from None
    finally:
        tmp.unlink(missing_ok=True)


def write_json(path: str | os.PathLike, document: dict) -> None:
    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8") as out:
            json.dump(document, out, indent=1)
            out.flush()
            os.fsync(out.fileno())

    _atomic_write(path, write)


def write_rows(path: str | os.PathLike, fmt: str, rows: list[dict]) -> None:
    """Flat rows as CSV or Parquet, written atomically."""
    _atomic_write(path, lambda tmp: flat.write_rows(tmp, fmt, rows))


def export_rows(conn: sa.Connection, study_id: int | None) -> list[dict]:
    """The flat rows of an export: ``queries.flat_rows`` with each study's own columns (space, spec, settings,
    description) filled on its first row, so the file imports back as a study that can be used."""
    rows = queries.flat_rows(conn, study_id)
    meta = {row.name: row for row in conn.execute(sa.select(studies))}
    seen = set()
    for row in rows:
        study = meta[row["study"]] if row["study"] not in seen else None
        seen.add(row["study"])
        row["study_space_yaml"] = study.space_yaml if study is not None else None
        row["study_spec_yaml"] = study.spec_yaml if study is not None else None
        row["study_settings"] = study.settings_json if study is not None else None
        row["study_description"] = study.description if study is not None else None
    return rows


# import

MAX_IMPORT_BYTES = 512 * 2**20
"""Largest export read (512 MiB, a few hundred thousand trials); export a large store one study at a time."""


def read_document(path: str | os.PathLike, spec=None, study: str | None = None) -> dict:
    """Read a JSON, CSV or Parquet export into the JSON export's shape; StoreError if it is none of those.

    ``spec`` (a :class:`~iotune.spec.CampaignSpec`) and ``study`` let a compact CSV, one without the
    study, config_key and state columns (``data/ground_truth/*.csv``), be read as that spec's study.
    """
    path = Path(path)
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise StoreError(f"{path} is not a regular file; give an iotune export (JSON, CSV or Parquet)")
        if info.st_size > MAX_IMPORT_BYTES:
            raise StoreError(f"{path} is {info.st_size} bytes, more than the {MAX_IMPORT_BYTES} an import reads; "
                             "export one study at a time (iotune export --study NAME)")
        with open(path, "rb") as handle:
            head = handle.read(4096)
            if head.startswith(b"PAR1"):
                return flat.rows_document(*flat.read_parquet(path), path, spec=spec, study=study)
            if head.lstrip()[:1] != b"{":
                handle.seek(0)
                text = io.TextIOWrapper(_Bounded(handle, path), encoding="utf-8", newline="")
                return flat.rows_document(*flat.read_csv(text, path), path, spec=spec, study=study)
            data = head + handle.read(MAX_IMPORT_BYTES + 1 - len(head))
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_IMPORT_BYTES:
        raise StoreError(f"{path} is more than the {MAX_IMPORT_BYTES} bytes an import reads")
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise StoreError(f"{path} is not valid JSON (truncated or corrupt?): {exc}") from None
    except RecursionError:
        raise StoreError(f"{path} nests JSON too deeply to be an iotune export") from None
    del data
    if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
        raise StoreError(f"{path} is JSON but not an iotune export (no \"format\": \"{FORMAT_NAME}\")")
    version = document.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version > FORMAT_VERSION or version < 1:
        raise StoreError(f"{path} is iotune export version {version!r}; this iotune reads version {FORMAT_VERSION}")
    if spec is not None or study is not None:
        raise StoreError(f"{path} is a full iotune export: it carries its studies and spaces; import it without "
                         "--spec and --study")
    return document


class _Bounded(io.RawIOBase):
    """A binary file read through, that fails once more than MAX_IMPORT_BYTES were read (the file may grow)."""

    def __init__(self, handle, path: Path):
        self._handle, self._path, self._read = handle, path, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        count = self._handle.readinto(buffer)
        self._read += count or 0
        if self._read > MAX_IMPORT_BYTES:
            raise StoreError(f"{self._path} is more than the {MAX_IMPORT_BYTES} bytes an import reads")
        return count


def apply_document(conn: sa.Connection, document: dict, path: str, progress=None) -> ImportReport:
    """Merge an export document into the database inside the caller's transaction, every field checked.

    The first malformed record raises one StoreError line naming it, and the
    caller's rollback leaves the database as it was.  ``progress(done, total)``,
    when given, is called as trials are stored.
    """
    return _Import(conn, path, progress).apply(document)


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

    def __init__(self, conn: sa.Connection, path: str, progress=None):
        self.conn = conn
        self.path = path
        self.report = ImportReport()
        self.where = ""
        self.progress = progress
        self.pending: list[tuple] = []
        self.seen: set[str] = set()
        self.repeats: dict[int, dict[str, set[int]]] = {}
        self.done = self.total = 0

    def fail(self, message: str) -> StoreError:
        return StoreError(f"{self.path}: {self.where + ': ' if self.where else ''}{message}")

    def apply(self, document: dict) -> ImportReport:
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
            info = checks.document(platform.get("info"), "platform info", optional=False)
            for key, value in info.items():
                if value is not None and (isinstance(value, (dict, list)) or
                                          (isinstance(value, float) and not math.isfinite(value))):
                    raise checks.BadRecord(f"platform info {key} must be a plain value, got {value!r}")
            platform_ids[fingerprint] = queries.ensure_platform(self.conn, info)
        studies_list = document.get("studies")
        if studies_list is None:
            raise checks.BadRecord("the export has no \"studies\" list")
        self.total = sum(len(study.get("trials") or []) for study in _items(studies_list, "studies")
                         if isinstance(study.get("trials"), list))
        for index, study in enumerate(_items(studies_list, "studies")):
            self.where = f"study #{index + 1}"
            label = checks.name(study.get("name"), "study name")
            self.where = f"study {label!r}"
            space = checks.study_space(study, self.where)
            target = self._target_study(study, space, host, provenance)
            study_trials = _items(study.get("trials") or [], "trials")
            if not study_trials:
                target.id()
            for number, trial in enumerate(study_trials, start=1):
                row = trial.get("_row")
                uid = trial.get("uid")
                self.where = (f"study {label!r}, " + (f"row {row}" if row else f"trial #{number}")
                              + (f" (uid {uid})" if isinstance(uid, str) and len(uid) <= 40 else ""))
                self._trial(target, trial, platform_ids, provenance)
        self.where = ""
        self.flush()
        return self.report

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
            row = queries.study_by_name(self.conn, candidate)
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
                again = queries.study_by_name(self.conn, candidate)
                if again is not None and again.space_hash == space_hash:
                    return again.id
                self.report.studies_added += 1
                return queries.insert_study(
                    self.conn,
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
        fixed = settings.get("benchmark") if isinstance(settings.get("benchmark"), dict) else {}
        for kind in ("hints", "env"):
            values = fixed.get(kind) if isinstance(fixed.get(kind), dict) else {}
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
        config, config_key, workload_key = checks.configuration(trial.get("config"), trial.get("config_key"),
                                                                trial.get("workload_key"), space)
        repeat = checks.count(trial.get("repeat"), "repeat", maximum=checks.MAX_REPEAT)
        phases = checks.phases(_items(trial.get("measurements") or [], "measurements"), "measurement")
        if state == "COMPLETE" and not phases:
            raise checks.BadRecord("a COMPLETE trial must have at least one measured phase")
        platform = trial.get("platform")
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
            report.trials_duplicate += 1
            return
        self.seen.add(uid)
        self.pending.append((target, phases, dict(
            uid=uid,
            platform_id=platform_ids.get(platform),
            config_key=config_key,
            workload_key=workload_key,
            config_json=queries.dumps(config, "configuration"),
            repeat=repeat,
            state=state,
            benchmark_json=None if bench is None else queries.dumps(bench, "benchmark"),
            imported_from=provenance if not earlier else f"{provenance} <- {earlier}",
            **values,
        )))
        if len(self.pending) >= BATCH:
            self.flush()

    def flush(self) -> None:
        """Store the checked trials waiting in ``pending``: duplicates skipped, taken repeats renumbered, then
        one insert of the trials and one of their phases (a statement per trial made imports 10x slower)."""
        conn, report, pending = self.conn, self.report, self.pending
        self.pending = []
        present = set()
        uids = [row["uid"] for _, _, row in pending]
        for start in range(0, len(uids), 500):
            present.update(conn.execute(sa.select(trials.c.uid).where(trials.c.uid.in_(uids[start:start + 500]))
                                        ).scalars())
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
        if rows:
            conn.execute(trials.insert(), rows)
            values = []
            added = list(phases)
            for start in range(0, len(added), 500):
                query = sa.select(trials.c.id, trials.c.uid).where(trials.c.uid.in_(added[start:start + 500]))
                for trial_id, uid in conn.execute(query):
                    values.extend(queries.phase_values(trial_id, phase) for phase in phases[uid])
            if values:
                conn.execute(measurements.insert(), values)
        report.trials_added += len(rows)
        self.done += len(pending)
        if self.progress is not None:
            self.progress(self.done, self.total)

    def _taken(self, study_id: int) -> dict[str, set[int]]:
        """{config_key: repeats} of a local study, read once per import."""
        if study_id not in self.repeats:
            taken: dict[str, set[int]] = {}
            query = sa.select(trials.c.config_key, trials.c.repeat).where(trials.c.study_id == study_id)
            for config_key, repeat in self.conn.execute(query):
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


def _local_space(row):
    """The space of a local study, or None when it has none that parses (older or hand-made stores)."""
    if not (row.space_yaml or "").strip():
        return None
    try:
        return queries.study_record(row).space
    except SpaceError:
        return None


def _items(value, what: str) -> list[dict]:
    if not isinstance(value, list):
        raise checks.BadRecord(f"{what} must be a list, got {type(value).__name__}")
    for index, item in enumerate(value, start=1):
        if not isinstance(item, dict):
            raise checks.BadRecord(f"{what} entry #{index} must be an object, got {type(item).__name__}")
    return value
