"""Export a store to a file and merge such a file into another store.

JSON is the exchange format and keeps everything::

    {"format": "iotune-export", "version": 1, "exported_at": ..., "source": {"host", "db"},
     "platforms": [{"fingerprint", "info"}],
     "studies": [{name, created_at, description, space_hash, space_yaml, settings, origin,
                  "trials": [{uid, config, config_key, ..., "platform": fingerprint,
                              "measurements": [{phase, bytes, seconds, ...}]}]}]}

CSV and Parquet hold the flat rows of ``Store.rows()`` (see ``flat``); they
import too, with the losses listed there.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

import sqlalchemy as sa

from iotune.records import PhaseResult
from iotune.errors import StoreError
from iotune.store import flat, queries
from iotune.store.records import TRIAL_STATES, ImportReport
from iotune.store.schema import platforms, studies, trials

FORMATS = ("json", "csv", "parquet")
FORMAT_NAME = "iotune-export"
FORMAT_VERSION = 1

_TRIAL_TEXT = ("error", "started_at", "finished_at", "runner", "command", "read_cache_mode")


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


# import


def read_document(path: str | os.PathLike) -> dict:
    """Read a JSON, CSV or Parquet export into the JSON export's shape; StoreError if it is none of those."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    if data.startswith(b"PAR1"):
        return flat.rows_document(flat.read_parquet(path), path)
    if data.lstrip()[:1] != b"{":
        return flat.rows_document(flat.read_csv(data, path), path)
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise StoreError(f"{path} is not valid JSON (truncated or corrupt?): {exc}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
        raise StoreError(f"{path} is JSON but not an iotune export (no \"format\": \"{FORMAT_NAME}\")")
    version = document.get("version")
    if not isinstance(version, int) or version > FORMAT_VERSION or version < 1:
        raise StoreError(f"{path} is iotune export version {version!r}; this iotune reads version {FORMAT_VERSION}")
    return document


def apply_document(conn: sa.Connection, document: dict, path: str) -> ImportReport:
    """Merge an export document into the database inside the caller's transaction.

    Any malformed part raises StoreError, and the caller's rollback leaves the
    database as it was.
    """
    try:
        return _apply(conn, document, path)
    except StoreError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        detail = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc).splitlines()[0]
        raise StoreError(f"{path} is a malformed iotune export: {detail}") from None


def _apply(conn: sa.Connection, document: dict, path: str) -> ImportReport:
    source = document.get("source") or {}
    host = str(source.get("host") or "unknown")
    provenance = f"{path} (host {host}, db {source.get('db') or 'unknown'})"
    report = ImportReport()
    platform_ids = {
        p["fingerprint"]: queries.ensure_platform(conn, _mapping(p["info"], "platform info"))
        for p in _items(document.get("platforms", []), "platforms")
    }
    for study in _items(document["studies"], "studies"):
        study_id = _target_study(conn, study, host, provenance, report)
        for trial in _items(study.get("trials", []), "trials"):
            _import_trial(conn, study_id, trial, platform_ids, provenance, report)
    return report


def _items(value, what: str) -> Iterable[dict]:
    if not isinstance(value, list):
        raise TypeError(f"{what} must be a list")
    return [_mapping(item, what) for item in value]


def _mapping(value, what: str) -> dict:
    if not isinstance(value, dict):
        raise TypeError(f"an entry of {what} must be an object, got {type(value).__name__}")
    return value


def _target_study(conn: sa.Connection, study: dict, host: str, provenance: str, report: ImportReport) -> int:
    """The local study the file's study goes into: same name and space merges, else ``name@host``."""
    name = study["name"]
    if not isinstance(name, str) or not name:
        raise ValueError(f"study name must be a non-empty string, got {name!r}")
    space_hash = str(study.get("space_hash") or "")
    for attempt in range(1, 1000):
        candidate = name if attempt == 1 else f"{name}@{host}" if attempt == 2 else f"{name}@{host}-{attempt - 1}"
        row = queries.study_by_name(conn, candidate)
        if row is not None and row.space_hash != space_hash:
            continue
        if candidate != name:
            report.renamed[name] = candidate
        if row is not None:
            report.studies_merged += 1
            return row.id
        report.studies_added += 1
        return queries.insert_study(
            conn,
            name=candidate,
            space_yaml=str(study.get("space_yaml") or ""),
            space_hash=space_hash,
            settings=study.get("settings") or {},
            description=str(study.get("description") or ""),
            created_at=study.get("created_at"),
            origin=provenance if not study.get("origin") else f"{provenance} <- {study['origin']}",
        )
    raise StoreError(f"cannot find a free local name for study {name!r} from {host}")


def _import_trial(conn, study_id: int, trial: dict, platform_ids: dict, provenance: str, report: ImportReport):
    state = trial["state"]
    if state not in TRIAL_STATES:
        raise ValueError(f"trial state must be one of {', '.join(TRIAL_STATES)}, got {state!r}")
    if state == "RUNNING":
        report.trials_skipped_running += 1
        return
    uid = trial["uid"]
    if not isinstance(uid, str) or not uid:
        raise ValueError(f"trial uid must be a non-empty string, got {uid!r}")
    if conn.execute(sa.select(trials.c.id).where(trials.c.uid == uid)).first() is not None:
        report.trials_duplicate += 1
        return
    config_key = str(trial["config_key"])
    repeat = trial["repeat"]
    if isinstance(repeat, bool) or not isinstance(repeat, int):
        raise ValueError(f"trial repeat must be an integer, got {repeat!r}")
    taken = conn.execute(
        sa.select(trials.c.id).where(
            trials.c.study_id == study_id, trials.c.config_key == config_key, trials.c.repeat == repeat
        )
    ).first()
    if taken is not None:
        repeat = queries.next_repeat(conn, study_id, config_key)
        report.trials_conflicting += 1
    platform = trial.get("platform")
    if platform is not None and platform not in platform_ids:
        raise ValueError(f"trial {uid} names platform {platform} that the file does not describe")
    earlier = trial.get("imported_from")
    wall = trial.get("wall_seconds")
    trial_id = conn.execute(
        trials.insert().values(
            uid=uid,
            study_id=study_id,
            platform_id=platform_ids.get(platform),
            config_key=config_key,
            workload_key=str(trial.get("workload_key") or ""),
            config_json=queries.dumps(_mapping(trial["config"], "config"), "configuration"),
            repeat=repeat,
            state=state,
            hints_requested_json=queries.dumps(trial.get("hints_requested") or {}, "hints requested"),
            hints_in_effect_json=queries.dumps(trial.get("hints_in_effect") or {}, "hints in effect"),
            wall_seconds=None if wall is None else float(wall),
            extra_json=queries.dumps(trial.get("extra") or {}, "extra"),
            benchmark_json=None if trial.get("benchmark") is None else queries.dumps(trial["benchmark"], "benchmark"),
            imported_from=provenance if not earlier else f"{provenance} <- {earlier}",
            **{name: trial.get(name) for name in _TRIAL_TEXT},
        )
    ).inserted_primary_key[0]
    phases = [_phase(m) for m in _items(trial.get("measurements") or [], "measurements")]
    queries.insert_phases(conn, trial_id, phases)
    report.trials_added += 1


def _phase(data: dict) -> PhaseResult:
    return PhaseResult(
        phase=str(data["phase"]),
        bytes=int(data["bytes"]),
        seconds=float(data["seconds"]),
        **{name: data.get(name) for name in queries.PHASE_FIELDS},
    )
