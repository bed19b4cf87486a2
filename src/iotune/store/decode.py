"""Rows of the store as records: what the SQLAlchemy store (:mod:`iotune.store.queries`) and the reading commands'
sqlite3 reader (:mod:`iotune.store.reader`) both hand out, decoded in one place.

A row is anything with the table's column names as attributes (a SQLAlchemy row, a reader's row).
"""

from __future__ import annotations

import json
import shlex

from iotune.errors import StoreError
from iotune.records import PhaseResult
from iotune.store.records import ROUNDS_SETTING, ModelRecord, StudyRecord, TrialRecord

MAX_STORED_JSON = 8 << 20
"""Characters of one stored JSON column parsed at most: JSON can take twenty times its size once parsed
(``[{},{},...]``), and a store may come from someone else (an import takes at most 1 MiB a document)."""


def loads(text: str | None, default=None, what: str = "JSON column"):
    """Decode a JSON column (``what`` names it in the error); NULL gives ``default``."""
    if text is None:
        return default
    if text == "{}":
        return {}  # most hints and extras: a tenth of reading a study's trials went to parsing these
    if len(text) > MAX_STORED_JSON:
        raise StoreError(f"the store's {what} is {len(text)} characters of JSON, more than the {MAX_STORED_JSON} "
                         "iotune reads: a damaged store, or one not written by iotune")
    return json.loads(text)


def study_record(row) -> StudyRecord:
    return StudyRecord(
        id=row.id,
        name=row.name,
        created_at=row.created_at,
        description=row.description or "",
        space_hash=row.space_hash,
        space_yaml=row.space_yaml,
        settings=loads(row.settings_json, {}, "settings"),
        origin=row.origin,
        spec_yaml=row.spec_yaml,
        controller=row.controller,
        controller_at=row.controller_at,
    )


def phase_from_row(row) -> PhaseResult:
    return PhaseResult(
        phase=row.phase,
        bytes=row.bytes,
        seconds=row.seconds,
        open_seconds=row.open_seconds,
        transfer_seconds=row.transfer_seconds,
        close_seconds=row.close_seconds,
        ops=row.ops,
        verify_errors=row.verify_errors,
    )


def trial_record(row) -> TrialRecord:
    return TrialRecord(
        id=row.id,
        uid=row.uid,
        study=row.study_name,
        study_id=row.study_id,
        platform_id=row.platform_id,
        config=loads(row.config_json, {}, "config"),
        config_key=row.config_key,
        workload_key=row.workload_key,
        repeat=row.repeat,
        state=row.state,
        error=row.error,
        started_at=row.started_at,
        finished_at=row.finished_at,
        runner=row.runner,
        command=row.command,
        hints_requested=loads(row.hints_requested_json, {}, "hints requested"),
        hints_in_effect=loads(row.hints_in_effect_json, {}, "hints in effect"),
        read_cache_mode=row.read_cache_mode,
        wall_seconds=row.wall_seconds,
        extra=loads(row.extra_json, {}, "extra"),
        benchmark=loads(row.benchmark_json, None, "benchmark"),
        imported_from=row.imported_from,
        owner=row.owner,
        heartbeat_at=row.heartbeat_at,
        seq=row.seq,
    )


def model_record(row) -> ModelRecord:
    params = loads(row.params_json, {})
    return ModelRecord(
        id=row.id,
        name=row.name,
        study=row.study,
        study_id=row.study_id,
        predictor=row.predictor,
        target=row.target,
        categorical=row.categorical,
        params=params.get("predictor", {}),
        dataset_options=params.get("dataset", {}),
        data_hash=row.data_hash,
        space_hash=row.space_hash,
        n_samples=row.n_samples,
        metrics=loads(row.metrics_json, {}),
        created_at=row.created_at,
    )


PHASE_FIELDS = ("open_seconds", "transfer_seconds", "close_seconds", "ops", "verify_errors")

BASE_COLUMNS = (
    "study",
    "space_hash",
    "trial_uid",
    "config_key",
    "workload_key",
    "repeat",
    "state",
    "error",
    "phase",
    "bytes",
    "seconds",
    "bandwidth_mib",
    "open_seconds",
    "transfer_seconds",
    "close_seconds",
    "ops",
    "verify_errors",
    "runner",
    "read_cache_mode",
    "hostname",
    "fs_type",
    "mpi_version",
    "iotune_version",
    "started_at",
)


def flat(rows) -> list[dict]:
    """Flat rows from query rows (dicts of BASE_COLUMNS, ``config_json`` and ``hints_in_effect_json``): every row
    with the same keys, BASE_COLUMNS then ``cfg.<parameter>`` and ``hint.<key>`` over the union of all rows, sorted;
    a row lacking one holds None."""
    out, cfg_names, hint_names = [], set(), set()
    for data in rows:
        config = loads(data.pop("config_json"), {}, "config")
        hints = loads(data.pop("hints_in_effect_json"), {}, "hints in effect")
        data.update({f"cfg.{k}": v for k, v in config.items()})
        data.update({f"hint.{k}": v for k, v in hints.items()})
        cfg_names.update(config)
        hint_names.update(hints)
        out.append(data)
    extra = [f"cfg.{k}" for k in sorted(cfg_names)] + [f"hint.{k}" for k in sorted(hint_names)]
    return [{name: data.get(name) for name in (*BASE_COLUMNS, *extra)} for data in out]


def with_rounds(found: list[TrialRecord], settings: dict[int, str | None]) -> list[TrialRecord]:
    """``found`` with each raced trial's ``race_round``, from its study's settings (``settings``: study id -> the
    stored settings JSON)."""
    rounds: dict[int, dict] = {}
    for study_id, text in settings.items():
        stored = (loads(text, {}) or {}).get(ROUNDS_SETTING)
        if isinstance(stored, dict) and stored:
            rounds[study_id] = stored
    if not rounds:
        return found
    for trial in found:
        played = rounds.get(trial.study_id, {}).get(f"{trial.config_key}#{trial.repeat}")
        if isinstance(played, int) and not isinstance(played, bool):
            trial.race_round = played
    return found


def no_model(study: str | int, name: str | None) -> StoreError:
    """The error for a study without the model asked for (its newest when ``name`` is None)."""
    which = f"no model {name!r}" if name is not None else "no model"
    return StoreError(f"{which} in study {study!r}; train one with `iotune train --study {shlex.quote(str(study))}`")
