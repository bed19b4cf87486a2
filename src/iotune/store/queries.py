"""Operations on an open connection, shared by the Store and by import/export.

Every function here runs inside the caller's transaction and never commits.
"""

from __future__ import annotations

import hashlib
import json
import math
import uuid
from datetime import datetime, timezone

import sqlalchemy as sa

from iotune.errors import StoreError
from iotune.records import PhaseResult
from iotune.store.decode import (  # noqa: F401  (loads, the columns and the records are used from here too)
    BASE_COLUMNS,
    MAX_STORED_JSON,
    PHASE_FIELDS,
    flat,
    loads,
    phase_from_row,
    study_record,
    trial_record,
)
from iotune.store.records import TrialRecord
from iotune.store.schema import measurements, platforms, studies, trials
from iotune.units import MIB

PLATFORM_COLUMNS = (
    "hostname",
    "kernel",
    "os",
    "cpu",
    "cores",
    "fs_type",
    "mpi_library",
    "mpi_version",
    "iotune_version",
    "python_version",
)


def dumps(value, what: str) -> str:
    """Canonical JSON (sorted keys, no spaces), or StoreError naming what could not be stored."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{what} is not JSON-serializable: {exc}") from None


def now() -> str:
    """The current time, ISO 8601 in UTC with microseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def new_uid() -> str:
    return uuid.uuid4().hex


def fingerprint(info: dict) -> str:
    """sha1 of the platform description's canonical JSON: equal descriptions are one platform."""
    return hashlib.sha1(dumps(info, "platform info").encode()).hexdigest()


def ensure_platform(conn: sa.Connection, info: dict) -> int:
    """Id of the platform described by ``info``, inserting it when new."""
    if not isinstance(info, dict):
        raise StoreError(f"platform info must be a dict, got {type(info).__name__}")
    key = fingerprint(info)
    found = conn.execute(sa.select(platforms.c.id).where(platforms.c.fingerprint == key)).scalar()
    if found is not None:
        return found
    values = {name: info.get(name) for name in PLATFORM_COLUMNS}
    for name, value in values.items():
        if value is not None and name != "cores":
            values[name] = str(value)
    if values["cores"] is not None:
        try:
            values["cores"] = int(values["cores"])
        except (TypeError, ValueError):
            raise StoreError(f"platform info 'cores' must be an integer, got {values['cores']!r}") from None
    result = conn.execute(platforms.insert().values(fingerprint=key, info_json=dumps(info, "platform info"), **values))
    return inserted_id(result)


def inserted_id(result: sa.CursorResult) -> int:
    """The primary key of the row an INSERT statement's ``result`` added."""
    key = result.inserted_primary_key
    if key is None:
        raise StoreError("the database returned no key for the inserted row")
    return key[0]


def study_by_name(conn: sa.Connection, name: str):
    return conn.execute(sa.select(studies).where(studies.c.name == name)).first()


def insert_study(conn, *, name, space_yaml, space_hash, settings, description="", created_at=None, origin=None,
                 spec_yaml=None) -> int:
    result = conn.execute(
        studies.insert().values(
            name=name,
            created_at=created_at or now(),
            description=description or "",
            space_hash=space_hash,
            space_yaml=space_yaml,
            settings_json=dumps(settings or {}, "study settings"),
            origin=origin,
            spec_yaml=spec_yaml,
        )
    )
    return result.inserted_primary_key[0]


def phase_values(trial_id: int, phase: PhaseResult) -> dict:
    """A measurements row for one phase; StoreError when the phase's numbers are missing or not numbers."""
    try:
        values = {
            "trial_id": trial_id,
            "phase": str(phase.phase),
            "bytes": int(phase.bytes),
            "seconds": float(phase.seconds),
            "open_seconds": _optional(float, phase.open_seconds),
            "transfer_seconds": _optional(float, phase.transfer_seconds),
            "close_seconds": _optional(float, phase.close_seconds),
            "ops": _optional(int, phase.ops),
            "verify_errors": _optional(int, phase.verify_errors),
        }
    except (TypeError, ValueError, AttributeError) as exc:
        raise StoreError(f"phase {getattr(phase, 'phase', phase)!r} cannot be stored: {exc}") from None
    bandwidth = values["bytes"] / MIB / values["seconds"] if values["seconds"] > 0 else math.inf
    values["bandwidth_mib"] = bandwidth if math.isfinite(bandwidth) else None
    return values


def _optional(kind, value):
    return None if value is None else kind(value)


def insert_phases(conn: sa.Connection, trial_id: int, phases: list[PhaseResult]) -> None:
    if phases:
        conn.execute(measurements.insert(), [phase_values(trial_id, p) for p in phases])


def _trial_filter(query, study_id: int | None, state: str | None, trial_id: int | None = None,
                  config_keys=None):
    if config_keys is not None:
        query = query.where(trials.c.config_key.in_(list(config_keys)))
    if study_id is not None:
        query = query.where(trials.c.study_id == study_id)
    if state is not None:
        query = query.where(trials.c.state == state)
    if trial_id is not None:
        query = query.where(trials.c.id == trial_id)
    return query


def select_trials(
    conn: sa.Connection, study_id: int | None = None, state: str | None = None, trial_id: int | None = None,
    config_keys=None,
) -> list[TrialRecord]:
    """Trials with their phases, ordered by study, configuration key and repeat."""
    query = sa.select(trials, studies.c.name.label("study_name")).join(studies, studies.c.id == trials.c.study_id)
    query = _trial_filter(query, study_id, state, trial_id, config_keys).order_by(
        studies.c.name, trials.c.config_key, trials.c.repeat
    )
    records = {row.id: trial_record(row) for row in conn.execute(query)}
    if records:
        phases = sa.select(measurements).join(trials, trials.c.id == measurements.c.trial_id)
        phases = _trial_filter(phases, study_id, state, trial_id, config_keys).order_by(measurements.c.id)
        for row in conn.execute(phases):
            record = records.get(row.trial_id)
            if record is not None:
                record.phases.append(phase_from_row(row))
    return list(records.values())


def next_repeat(conn: sa.Connection, study_id: int, config_key: str) -> int:
    """The smallest repeat number above every repeat stored for this configuration."""
    top = conn.execute(
        sa.select(sa.func.max(trials.c.repeat)).where(
            trials.c.study_id == study_id, trials.c.config_key == config_key
        )
    ).scalar()
    return 0 if top is None else top + 1


def flat_rows(conn: sa.Connection, study_id: int | None = None) -> list[dict]:
    """One dict per measured phase (one per trial without phases); every row has the same keys.

    Keys are BASE_COLUMNS, then ``cfg.<parameter>`` and ``hint.<key>`` (hints in
    effect) over the union of all rows, sorted; a row lacking one holds None.
    """
    m = measurements
    query = (
        sa.select(
            studies.c.name.label("study"),
            studies.c.space_hash,
            trials.c.uid.label("trial_uid"),
            trials.c.config_key,
            trials.c.workload_key,
            trials.c.repeat,
            trials.c.state,
            trials.c.error,
            m.c.phase,
            m.c.bytes,
            m.c.seconds,
            m.c.bandwidth_mib,
            m.c.open_seconds,
            m.c.transfer_seconds,
            m.c.close_seconds,
            m.c.ops,
            m.c.verify_errors,
            trials.c.runner,
            trials.c.read_cache_mode,
            platforms.c.hostname,
            platforms.c.fs_type,
            platforms.c.mpi_version,
            platforms.c.iotune_version,
            trials.c.started_at,
            trials.c.config_json,
            trials.c.hints_in_effect_json,
        )
        .select_from(trials)
        .join(studies, studies.c.id == trials.c.study_id)
        .outerjoin(platforms, platforms.c.id == trials.c.platform_id)
        .outerjoin(m, m.c.trial_id == trials.c.id)
        .order_by(studies.c.name, trials.c.config_key, trials.c.repeat, m.c.id)
    )
    if study_id is not None:
        query = query.where(trials.c.study_id == study_id)
    return flat(row._asdict() for row in conn.execute(query))
