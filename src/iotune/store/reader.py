"""The reading commands' store: a SQLite file read through the standard library's ``sqlite3``.

SQLAlchemy's import alone was half of ``iotune results`` (issue 32: a reading
command within 0.3 s of the interpreter's start-up).  A reading command only
selects, so for a SQLite file it needs none of it: :func:`open_reader` opens
the file read-only exactly as a read-only :class:`~iotune.store.Store` does
(:func:`~iotune.store.engine.check_sqlite_file`, then
:func:`~iotune.store.engine.read_only_uri`) and answers the
:class:`~iotune.store.base.StorageReader` operations with the same queries,
decoded by the same code (:mod:`iotune.store.decode`).  Any other URL
(PostgreSQL, an in-memory or URI-style SQLite URL) gets a read-only ``Store``.
tests/store/test_reader.py holds the two to the same answers.
"""

from __future__ import annotations

import os
import socket
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from iotune.errors import StoreError
from iotune.store import decode
from iotune.store.base import StorageReader
from iotune.store.engine import (
    BUSY_TIMEOUT_MS,
    check_sqlite_file,
    first_line,
    is_corrupt,
    masked,
    normalize_url,
    read_only_uri,
    require_file,
)
from iotune.store.records import TRIAL_STATES, ModelRecord, StudyRecord, TrialRecord
from iotune.store.version import check_readable

SQLITE_PREFIXES = ("sqlite:///", "sqlite+pysqlite:///")
IN_LIMIT = 500
"""Values in one SQL ``IN (...)`` list at most, as the Store keeps them."""


def sqlite_file(url: str) -> str | None:
    """The path of a plain SQLite file URL (``sqlite:///PATH``); None for anything else, which a ``Store`` reads
    (another database, ``:memory:``, a URL with a query, or one whose path SQLAlchemy would decode: ``%``)."""
    for prefix in SQLITE_PREFIXES:
        if url.startswith(prefix):
            path = url[len(prefix):]
            if path and path != ":memory:" and not path.startswith("file:") and not any(c in path for c in "?#%"):
                return path
    return None


def open_reader(url: str | os.PathLike | None = None) -> StorageReader:
    """The store at ``url`` (None: ``iotune.db`` here; a path; a URL), opened to read only: it is never created
    or changed, and may be on read-only media."""
    url = normalize_url(url)
    path = sqlite_file(url)
    if path is None:
        from iotune.store.store import Store

        return Store(url, read_only=True)
    return SqliteReader(url, path)


class _Row(dict):
    """A result row whose columns are also attributes, as :mod:`iotune.store.decode` reads them."""

    def __getattr__(self, name: str):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def _rows(conn: sqlite3.Connection, sql: str, values=()) -> list[_Row]:
    """The rows ``sql`` selects, each a :class:`_Row`."""
    cursor = conn.execute(sql, values)
    names = [column[0] for column in cursor.description]
    return [_Row(zip(names, row, strict=True)) for row in cursor]


def _one(conn: sqlite3.Connection, sql: str, values=()) -> _Row | None:
    found = _rows(conn, sql, values)
    return found[0] if found else None


def _marks(values) -> str:
    return ", ".join("?" for _ in values)


TRIALS = "SELECT trials.*, studies.name AS study_name FROM trials JOIN studies ON studies.id = trials.study_id"
PHASES = "SELECT measurements.* FROM measurements JOIN trials ON trials.id = measurements.trial_id"
FLAT = """SELECT studies.name AS study, studies.space_hash, trials.uid AS trial_uid, trials.config_key,
       trials.workload_key, trials."repeat", trials.state, trials.error, m.phase, m.bytes, m.seconds, m.bandwidth_mib,
       m.open_seconds, m.transfer_seconds, m.close_seconds, m.ops, m.verify_errors, trials.runner,
       trials.read_cache_mode, platforms.hostname, platforms.fs_type, platforms.mpi_version, platforms.iotune_version,
       trials.started_at, trials.config_json, trials.hints_in_effect_json
FROM trials JOIN studies ON studies.id = trials.study_id
LEFT OUTER JOIN platforms ON platforms.id = trials.platform_id
LEFT OUTER JOIN measurements AS m ON m.trial_id = trials.id"""
MODELS = "SELECT models.*, studies.name AS study FROM models JOIN studies ON studies.id = models.study_id"


class SqliteReader(StorageReader):
    """A SQLite store opened read-only through ``sqlite3``: every read a :class:`~iotune.store.Store` offers, each
    in one read transaction (one snapshot), and no write at all."""

    def __init__(self, url: str, path: str):
        self.url = url
        self._path = path
        self._closed = False
        require_file(path)
        check_sqlite_file(path)
        try:
            self._conn = sqlite3.connect(read_only_uri(path), uri=True, check_same_thread=False,
                                         isolation_level=None)  # we issue BEGIN ourselves
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")  # a writer's commit: wait, as Store does
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open store {masked(url)}: {first_line(exc)}") from None
        try:
            with self._read("cannot open store") as conn:
                has_meta = _one(conn, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'")
                version = None
                if has_meta:
                    row = _one(conn, "SELECT value FROM meta WHERE key = 'schema_version'")
                    version = str(row["value"]) if row else ""
            check_readable(version, masked(url))
        except BaseException:
            self._conn.close()
            raise

    def __repr__(self) -> str:
        return f"SqliteReader({masked(self.url)!r})"

    def __enter__(self) -> SqliteReader:
        return self

    @property
    def backend(self) -> str:
        return "sqlite"

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._conn.close()

    def source(self) -> dict:
        return {"host": socket.gethostname(), "db": self._path}

    @contextmanager
    def _read(self, failure: str = "store") -> Iterator[sqlite3.Connection]:
        if self._closed:
            raise StoreError(f"store {masked(self.url)} is closed")
        try:
            self._conn.execute("BEGIN")
            try:
                yield self._conn
            finally:
                self._conn.execute("COMMIT")  # ends the read: nothing was written
        except sqlite3.Error as exc:
            if is_corrupt(exc):
                raise StoreError(f"the store {masked(self.url)} is corrupt ({first_line(exc)}); restore it from a "
                                 "copy or an export") from None
            raise StoreError(f"{failure} {masked(self.url)}: {first_line(exc)}") from None

    def _study_id(self, conn: sqlite3.Connection, study: str | int) -> int:
        if isinstance(study, bool) or not isinstance(study, (str, int)):
            raise StoreError(f"a study is named by its name or id, got {study!r}")
        column = "name" if isinstance(study, str) else "id"
        found = _one(conn, f"SELECT id FROM studies WHERE {column} = ?", (study,))
        if found is None:
            raise StoreError(f"no study {study!r} in {masked(self.url)}")
        return found["id"]

    # platforms and studies

    def platforms(self, ids) -> dict[int, dict]:
        wanted = sorted({int(i) for i in ids if i is not None})
        if not wanted:
            return {}
        found: dict[int, dict] = {}
        with self._read() as conn:
            for start in range(0, len(wanted), IN_LIMIT):
                part = wanted[start:start + IN_LIMIT]
                for row in _rows(conn, f"SELECT id, info_json FROM platforms WHERE id IN ({_marks(part)})", part):
                    found[row.id] = decode.loads(row.info_json, {})
        return found

    def get_study(self, name: str) -> StudyRecord | None:
        with self._read() as conn:
            row = _one(conn, "SELECT * FROM studies WHERE name = ?", (name,))
            return None if row is None else decode.study_record(row)

    def list_studies(self) -> list[StudyRecord]:
        with self._read() as conn:
            return [decode.study_record(row) for row in _rows(conn, "SELECT * FROM studies ORDER BY name")]

    # trials

    def trial_states(self, study_id: int) -> dict[tuple[str, int], str]:
        with self._read() as conn:
            rows = _rows(conn, 'SELECT config_key, "repeat", state FROM trials WHERE study_id = ?',
                                (self._study_id(conn, study_id),))
            return {(r.config_key, r.repeat): r.state for r in rows}

    def trial_sources(self, study_id: int) -> list[tuple[str, str | None, dict]]:
        with self._read() as conn:
            rows = _rows(conn, "SELECT config_key, command, extra_json FROM trials WHERE study_id = ?",
                                (self._study_id(conn, study_id),))
            return [(r.config_key, r.command, decode.loads(r.extra_json, {}) or {}) for r in rows]

    def running_trials(self, study_id: int) -> list[int]:
        with self._read() as conn:
            rows = _rows(conn, "SELECT id FROM trials WHERE study_id = ? AND state = 'RUNNING' ORDER BY id",
                                (self._study_id(conn, study_id),))
            return [r.id for r in rows]

    def get_trial(self, trial_id: int) -> TrialRecord:
        with self._read() as conn:
            found = self._select_trials(conn, trial_id=trial_id)
        if not found:
            raise StoreError(f"no trial with id {trial_id} in {masked(self.url)}")
        return found[0]

    def trials(self, study: str | int | None = None, state: str | None = None,
               config_keys=None) -> list[TrialRecord]:
        if state is not None and state not in TRIAL_STATES:
            raise StoreError(f"unknown trial state {state!r}; use one of {', '.join(TRIAL_STATES)}")
        keys = None if config_keys is None else list(config_keys)
        with self._read() as conn:
            study_id = None if study is None else self._study_id(conn, study)
            if keys is not None and len(keys) > IN_LIMIT:  # keep IN lists short: filter in Python instead
                wanted = set(keys)
                found = [t for t in self._select_trials(conn, study_id, state) if t.config_key in wanted]
            else:
                found = self._select_trials(conn, study_id, state, config_keys=keys)
            ids = sorted({t.study_id for t in found})
            settings = {row.id: row.settings_json for row in
                        _rows(conn, f"SELECT id, settings_json FROM studies WHERE id IN ({_marks(ids)})", ids)}
        return decode.with_rounds(found, settings)

    @staticmethod
    def _select_trials(conn: sqlite3.Connection, study_id: int | None = None, state: str | None = None,
                       trial_id: int | None = None, config_keys: list | None = None) -> list[TrialRecord]:
        """Trials with their phases, ordered by study, configuration key and repeat (:func:`queries.select_trials`)."""
        where, values = [], []
        if config_keys is not None:
            where.append(f"trials.config_key IN ({_marks(config_keys)})")
            values += config_keys
        for column, value in (("study_id", study_id), ("state", state), ("id", trial_id)):
            if value is not None:
                where.append(f"trials.{column} = ?")
                values.append(value)
        condition = f" WHERE {' AND '.join(where)}" if where else ""
        records = {row.id: decode.trial_record(row) for row in _rows(conn,
            f'{TRIALS}{condition} ORDER BY studies.name, trials.config_key, trials."repeat"', values)}
        if records:
            for row in _rows(conn, f"{PHASES}{condition} ORDER BY measurements.id", values):
                record = records.get(row.trial_id)
                if record is not None:
                    record.phases.append(decode.phase_from_row(row))
        return list(records.values())

    def rows(self, study: str | int | None = None) -> list[dict]:
        with self._read() as conn:
            condition, values = "", []
            if study is not None:
                condition, values = " WHERE trials.study_id = ?", [self._study_id(conn, study)]
            query = f'{FLAT}{condition} ORDER BY studies.name, trials.config_key, trials."repeat", m.id'
            return decode.flat(dict(row) for row in _rows(conn, query, values))

    # the queue

    def running_owners(self, study: str | int) -> dict[str, str | None]:
        with self._read() as conn:
            rows = _rows(conn, "SELECT owner, max(heartbeat_at) AS beat FROM trials WHERE study_id = ? AND "
                                "state = 'RUNNING' GROUP BY owner", (self._study_id(conn, study),))
            return {row.owner or "": row.beat for row in rows}

    def queue_counts(self, study: str | int) -> dict[str, int]:
        with self._read() as conn:
            rows = _rows(conn, "SELECT state, count(*) AS n FROM trials WHERE study_id = ? GROUP BY state",
                                (self._study_id(conn, study),))
            return {row.state: row.n for row in rows}

    # models

    def model_blob(self, study: str | int, name: str | None = None) -> tuple[ModelRecord, bytes, str]:
        with self._read() as conn:
            study_id = self._study_id(conn, study)
            where = " WHERE models.study_id = ?" + ("" if name is None else " AND models.name = ?")
            values = (study_id,) if name is None else (study_id, name)
            row = _one(conn, f"{MODELS}{where} ORDER BY models.created_at DESC, models.id DESC LIMIT 1", values)
        if row is None:
            raise decode.no_model(study, name)
        return decode.model_record(row), bytes(row.blob), row.format

    def list_models(self, study: str | int | None = None) -> list[ModelRecord]:
        with self._read() as conn:
            where, values = "", []
            if study is not None:
                where, values = " WHERE models.study_id = ?", [self._study_id(conn, study)]
            rows = _rows(conn, f"{MODELS}{where} ORDER BY studies.name, models.created_at, models.id", values)
            return [decode.model_record(row) for row in rows]
