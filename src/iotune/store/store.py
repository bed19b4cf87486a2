"""The Store: the only code that touches the results database.

A trial is committed at every change of state, each in its own transaction:
``enqueue`` writes it PENDING, ``claim`` hands the next PENDING trial (or one
whose owner died) to one worker as RUNNING, ``heartbeat`` renews the claim
while it runs, ``finish_trial`` commits its outcome and every raw phase at
once.  A campaign or worker killed at any moment therefore leaves finished
trials complete and the interrupted one RUNNING under a dead owner, to be
claimed again; nothing finished is ever measured twice.  Claims are atomic:
PostgreSQL locks the claimed row and skips rows other workers hold
(``FOR UPDATE SKIP LOCKED``); SQLite serialises writers (``BEGIN IMMEDIATE``).
``start_trial`` claims a named trial directly (``iotune run``).
"""

from __future__ import annotations

import dataclasses
import math
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, is_dataclass

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from iotune.errors import SpaceError, StoreError
from iotune.records import Measurement
from iotune.shield import shielded
from iotune.spec.environment import UnsafeEnvironmentError, check_environment
from iotune.store import model_rows, queries
from iotune.store.base import BulkImport, Storage
from iotune.store.decode import no_model, with_rounds
from iotune.store.engine import WRITE, create_engine, first_line, is_corrupt, masked, normalize_url, require_file
from iotune.store.identity import HeldFile
from iotune.store.records import TRIAL_STATES, ModelRecord, StudyRecord, TrialRecord
from iotune.store.schema import check_schema, ensure_schema, measurements, models, platforms, studies, trials

_RESETTABLE = ("PENDING", "RUNNING", "FAILED")


def _check_queued_environment(conn: sa.Connection, trial_id: int) -> None:
    """Refuse to hand out a queued trial whose stored benchmark sets an environment variable that is not safe.

    The worker runs the benchmark stored with the trial; a store received from
    someone else may hold one that sets ``LD_PRELOAD`` or ``BASH_FUNC_*``.
    """
    row = conn.execute(sa.select(trials.c.benchmark_json, trials.c.config_key, trials.c.repeat)
                       .where(trials.c.id == trial_id)).one()
    benchmark = queries.loads(row.benchmark_json, None)
    env = benchmark.get("env") if isinstance(benchmark, dict) else None
    if env:
        if not isinstance(env, dict):
            raise StoreError(f"queued trial {row.config_key} repeat {row.repeat} has a malformed benchmark env")
        try:
            check_environment(env, f"queued trial {row.config_key} repeat {row.repeat}")
        except (SpaceError, UnsafeEnvironmentError) as exc:
            raise StoreError(str(exc)) from None


class Store(Storage):
    """Results database: SQLite file by default, PostgreSQL (or any SQLAlchemy URL) when given one.

    ``url`` may be None (``iotune.db`` in the working directory), a file path,
    or a URL such as ``postgresql+psycopg://user:pw@host/db``.  Opening creates
    the schema in an empty database and refuses one written by a newer iotune.
    With ``create=False`` (commands that only read what was measured) a SQLite
    file that does not exist is an error rather than a new, empty store.  With
    ``read_only`` (commands that only read) nothing is ever created or written:
    a SQLite file is opened read-only (it may be on read-only media), a
    PostgreSQL transaction is READ ONLY.
    """

    def __init__(self, url: str | os.PathLike | None = None, *, create: bool = True, read_only: bool = False):
        self.url = normalize_url(url)
        if not create or read_only:
            _require_existing(self.url)
        self._closed = False
        self._read_only = read_only
        self._held: HeldFile | None = None
        self._engine = create_engine(self.url, read_only=read_only)
        try:
            with self._transaction(write=not read_only, failure="cannot open store") as conn:
                if read_only:
                    check_schema(conn, masked(self.url))
                    return
                if conn.dialect.name == "postgresql":
                    # One opener at a time creates the schema; the number is arbitrary but fixed.
                    conn.execute(sa.text("SELECT pg_advisory_xact_lock(7158400361)"))
                ensure_schema(conn, masked(self.url))
        except BaseException:
            self._engine.dispose()
            raise
        if self.backend == "sqlite" and not read_only:
            self._held = HeldFile.of(self._engine.url.database)

    def __repr__(self) -> str:
        return f"Store({masked(self.url)!r})"

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Release every connection; the store cannot be used afterwards."""
        if not self._closed:
            self._closed = True
            with shielded():
                self._engine.dispose()
                if self._held is not None:
                    self._held.close()

    @property
    def backend(self) -> str:
        """The database kind: "sqlite", "postgresql", ..."""
        return self._engine.dialect.name

    @contextmanager
    def _transaction(self, write: bool, failure: str = "store", shield: bool = True) -> Iterator[sa.Connection]:
        if self._closed:
            raise StoreError(f"store {masked(self.url)} is closed")
        if write and self._held is not None:  # before every write: one into a file no longer there is lost
            self._held.check()
        try:
            # A signal inside SQLAlchemy's begin, commit or connection return, or between the generator's yield
            # and the caller's `with` body, left a connection holding the write lock while the KeyboardInterrupt
            # travelled up (iotune.shield): the whole transaction is one shielded section.  Not so an import or
            # an export, which may take minutes: Ctrl-C must stop them at once (the process ends with the lock).
            with shielded() if shield else nullcontext(), self._engine.connect() as conn:
                if write:
                    conn.execution_options(**{WRITE: True})
                with conn.begin():
                    if self._read_only and conn.dialect.name == "postgresql":
                        conn.exec_driver_sql("SET TRANSACTION READ ONLY")
                    yield conn
        except SQLAlchemyError as exc:
            if is_corrupt(exc):
                raise StoreError(f"the store {masked(self.url)} is corrupt ({first_line(exc)}); restore it from a "
                                 "copy or an export") from None
            raise StoreError(f"{failure} {masked(self.url)}: {first_line(exc)}") from None

    def _write(self):
        return self._transaction(write=True)

    def _read(self):
        return self._transaction(write=False)

    def _study_id(self, conn: sa.Connection, study: str | int) -> int:
        if isinstance(study, bool) or not isinstance(study, (str, int)):
            raise StoreError(f"a study is named by its name or id, got {study!r}")
        column = studies.c.name if isinstance(study, str) else studies.c.id
        found = conn.execute(sa.select(studies.c.id).where(column == study)).scalar()
        if found is None:
            raise StoreError(f"no study {study!r} in {masked(self.url)}")
        return found

    # platforms and studies

    def register_platform(self, info: dict) -> int:
        """Id of the platform ``info`` describes (hostname, kernel, fs_type, mpi_version, ...); same info, same id."""
        with self._write() as conn:
            return queries.ensure_platform(conn, info)

    def platforms(self, ids) -> dict[int, dict]:
        """The platform descriptions (as registered) of the platform ids ``ids``: id -> info dict."""
        wanted = sorted({int(i) for i in ids if i is not None})
        if not wanted:
            return {}
        with self._read() as conn:
            rows = conn.execute(sa.select(platforms.c.id, platforms.c.info_json).where(platforms.c.id.in_(wanted)))
            return {row.id: queries.loads(row.info_json, {}) for row in rows}

    def create_study(
        self, name: str, space_yaml: str, space_hash: str, settings: dict, description: str = "",
        spec_yaml: str | None = None,
    ) -> StudyRecord:
        """A new, empty study; StoreError if the name is taken."""
        if not isinstance(name, str) or not name.strip():
            raise StoreError(f"a study name must be a non-empty string, got {name!r}")
        with self._write() as conn:
            if queries.study_by_name(conn, name) is not None:
                raise StoreError(f"study {name!r} already exists in {masked(self.url)}")
            try:
                with conn.begin_nested():
                    study_id = queries.insert_study(
                        conn,
                        name=name,
                        space_yaml=space_yaml,
                        space_hash=space_hash,
                        settings=settings,
                        description=description,
                        spec_yaml=spec_yaml,
                    )
            except IntegrityError:
                raise StoreError(f"study {name!r} already exists in {masked(self.url)}") from None
            return queries.study_record(conn.execute(sa.select(studies).where(studies.c.id == study_id)).one())

    def get_study(self, name: str) -> StudyRecord | None:
        """The study of that name, or None."""
        with self._read() as conn:
            row = queries.study_by_name(conn, name)
            return None if row is None else queries.study_record(row)

    def list_studies(self) -> list[StudyRecord]:
        """Every study, by name."""
        with self._read() as conn:
            return [queries.study_record(r) for r in conn.execute(sa.select(studies).order_by(studies.c.name))]

    def update_settings(self, study: str | int, changes: dict) -> dict:
        """Merge ``changes`` into a study's settings (e.g. the Slurm job that runs its workers); return them all."""
        with self._write() as conn:
            study_id = self._study_id(conn, study)
            text = conn.execute(sa.select(studies.c.settings_json).where(studies.c.id == study_id)
                                .with_for_update()).scalar()
            settings = {**queries.loads(text, {}), **changes}
            conn.execute(studies.update().where(studies.c.id == study_id)
                         .values(settings_json=queries.dumps(settings, "study settings")))
            return settings

    def delete_study(self, name: str) -> None:
        """Remove a study with all its trials, measurements and models; StoreError if there is none of that name."""
        with self._write() as conn:
            study_id = self._study_id(conn, name)
            conn.execute(models.delete().where(models.c.study_id == study_id))
            trial_ids = sa.select(trials.c.id).where(trials.c.study_id == study_id)
            conn.execute(measurements.delete().where(measurements.c.trial_id.in_(trial_ids)))
            conn.execute(trials.delete().where(trials.c.study_id == study_id))
            conn.execute(studies.delete().where(studies.c.id == study_id))

    def rename_study(self, name: str, new_name: str) -> StudyRecord:
        """Give study ``name`` the name ``new_name``, keeping its trials, measurements and models; StoreError if
        there is no study ``name``, ``new_name`` is empty or another study has it."""
        if not isinstance(new_name, str) or not new_name.strip():
            raise StoreError(f"a study name must be a non-empty string, got {new_name!r}")
        with self._write() as conn:
            study_id = self._study_id(conn, name)
            if new_name != name and queries.study_by_name(conn, new_name) is not None:
                raise StoreError(f"study {new_name!r} already exists in {masked(self.url)}")
            try:
                conn.execute(studies.update().where(studies.c.id == study_id).values(name=new_name))
            except IntegrityError:
                raise StoreError(f"study {new_name!r} already exists in {masked(self.url)}") from None
            return queries.study_record(conn.execute(sa.select(studies).where(studies.c.id == study_id)).one())

    # trials

    def start_trial(
        self,
        study_id: int,
        config: dict,
        config_key: str,
        workload_key: str,
        repeat: int,
        platform_id: int | None = None,
        benchmark: dict | None = None,
        owner: str | None = None,
    ) -> int:
        """Record (and commit) a RUNNING trial held by ``owner`` before it runs; return its id.

        A PENDING, RUNNING or FAILED row for the same (study, configuration, repeat) is
        reset and reused: its measurements go, it gets a new uid, since what
        follows is a new measurement.  A COMPLETE or INVALID one is StoreError:
        finished work is never repeated.
        """
        if is_dataclass(benchmark):
            benchmark = asdict(benchmark)
        values = {
            "config_json": queries.dumps(config, "configuration"),
            "workload_key": workload_key,
            "platform_id": platform_id,
            "benchmark_json": None if benchmark is None else queries.dumps(benchmark, "benchmark"),
            "state": "RUNNING",
            "uid": queries.new_uid(),
            "started_at": queries.now(),
            "error": None,
            "finished_at": None,
            "runner": None,
            "command": None,
            "hints_requested_json": None,
            "hints_in_effect_json": None,
            "read_cache_mode": None,
            "wall_seconds": None,
            "extra_json": None,
            "imported_from": None,
            "owner": owner,
            "heartbeat_at": queries.now(),
        }
        if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 0:
            raise StoreError(f"repeat must be a non-negative integer, got {repeat!r}")
        with self._write() as conn:
            study_id = self._study_id(conn, study_id)
            existing = self._locked_trial(conn, study_id, config_key, repeat)
            if existing is None:
                try:
                    with conn.begin_nested():
                        return conn.execute(
                            trials.insert().values(
                                study_id=study_id, config_key=config_key, repeat=repeat, **values
                            )
                        ).inserted_primary_key[0]
                except IntegrityError:
                    existing = self._locked_trial(conn, study_id, config_key, repeat)
                    if existing is None:
                        raise StoreError(
                            f"cannot start trial {config_key} repeat {repeat}: platform {platform_id} "
                            f"does not exist in {masked(self.url)}"
                        ) from None
            if existing.state not in _RESETTABLE:
                raise StoreError(
                    f"trial {config_key} repeat {repeat} of study {study_id} is already {existing.state}; "
                    "finished work is never repeated"
                )
            conn.execute(measurements.delete().where(measurements.c.trial_id == existing.id))
            conn.execute(trials.update().where(trials.c.id == existing.id).values(**values))
            return existing.id

    @staticmethod
    def _locked_trial(conn: sa.Connection, study_id: int, config_key: str, repeat: int):
        query = sa.select(trials.c.id, trials.c.state).where(
            trials.c.study_id == study_id, trials.c.config_key == config_key, trials.c.repeat == repeat
        )
        return conn.execute(query.with_for_update()).first()

    def finish_trial(self, trial_id: int, measurement: Measurement, owner: str | None = None) -> None:
        """Record a RUNNING trial's outcome, provenance and every phase, all in one commit.

        With ``owner``, the trial must still be held by it: a worker whose claim
        was taken over (it was thought dead) gets StoreError and its result is
        dropped, so a trial is never recorded twice.
        """
        if not isinstance(measurement, Measurement) or measurement.status not in ("COMPLETE", "FAILED"):
            raise StoreError(f"finish_trial needs a Measurement with status COMPLETE or FAILED, got {measurement!r}")
        measurement = _impossible_as_failed(measurement)
        values = {
            "state": measurement.status,
            "error": measurement.error,
            "finished_at": queries.now(),
            "runner": measurement.runner,
            "command": measurement.command,
            "hints_requested_json": queries.dumps(measurement.hints_requested, "hints requested"),
            "hints_in_effect_json": queries.dumps(measurement.hints_in_effect, "hints in effect"),
            "read_cache_mode": measurement.read_cache_mode,
            "wall_seconds": measurement.wall_seconds,
            "extra_json": queries.dumps(measurement.extra, "measurement extra"),
        }
        with self._write() as conn:
            state = conn.execute(
                sa.select(trials.c.state).where(trials.c.id == trial_id).with_for_update()
            ).scalar()
            if state is None:
                raise StoreError(f"no trial with id {trial_id} in {masked(self.url)}")
            if state != "RUNNING":
                raise StoreError(f"trial {trial_id} is {state}, not RUNNING; start it again before finishing it")
            if owner is not None:
                holder = conn.execute(sa.select(trials.c.owner).where(trials.c.id == trial_id)).scalar()
                if holder != owner:
                    raise StoreError(f"trial {trial_id} is now held by {holder}, not by {owner}: another worker took "
                                     "it over; this result is dropped")
            conn.execute(trials.update().where(trials.c.id == trial_id).values(**values, heartbeat_at=None))
            queries.insert_phases(conn, trial_id, measurement.phases)

    def add_trials(self, study_id: int, finished: list[tuple]) -> None:
        """Store already measured trials in one commit, so an import killed midway leaves whole trials only.

        Each item is ``(config, config_key, workload_key, repeat, platform_id,
        benchmark, measurement)``; the (configuration, repeat) pairs must be free.
        """
        now = queries.now()
        rows, phases = [], {}
        for config, config_key, workload_key, repeat, platform_id, benchmark, measurement in finished:
            measurement = _impossible_as_failed(measurement)
            uid = queries.new_uid()
            phases[uid] = measurement.phases
            rows.append(dict(
                study_id=study_id, config_key=config_key, repeat=repeat, workload_key=workload_key,
                config_json=queries.dumps(config, "configuration"), platform_id=platform_id,
                benchmark_json=None if benchmark is None else queries.dumps(benchmark, "benchmark"),
                state=measurement.status, uid=uid, started_at=now, finished_at=now,
                error=measurement.error, runner=measurement.runner, command=measurement.command,
                hints_requested_json=queries.dumps(measurement.hints_requested, "hints requested"),
                hints_in_effect_json=queries.dumps(measurement.hints_in_effect, "hints in effect"),
                read_cache_mode=measurement.read_cache_mode, wall_seconds=measurement.wall_seconds,
                extra_json=queries.dumps(measurement.extra, "measurement extra"),
            ))
        if not rows:
            return
        with self._write() as conn:
            conn.execute(trials.insert(), rows)  # one executemany: a row at a time is 10x slower
            uids = list(phases)
            values: list[dict] = []
            for start in range(0, len(uids), 500):
                chunk = uids[start:start + 500]
                for trial_id, uid in conn.execute(sa.select(trials.c.id, trials.c.uid).where(trials.c.uid.in_(chunk))):
                    values.extend(queries.phase_values(trial_id, phase) for phase in phases[uid])
            if values:
                conn.execute(measurements.insert(), values)

    def mark_invalid(self, study_id: int, config: dict, config_key: str, workload_key: str, reason: str) -> int:
        """Record that a configuration cannot exist, so it is never proposed again; return the trial id.

        The record is repeat 0.  Unfinished (RUNNING, FAILED) trials of the
        configuration become INVALID too; StoreError if it has COMPLETE trials.
        """
        config_json = queries.dumps(config, "configuration")
        with self._write() as conn:
            study_id = self._study_id(conn, study_id)
            rows = conn.execute(
                sa.select(trials.c.id, trials.c.state, trials.c.repeat)
                .where(trials.c.study_id == study_id, trials.c.config_key == config_key)
                .order_by(trials.c.repeat)
                .with_for_update()
            ).all()
            if any(r.state == "COMPLETE" for r in rows):
                raise StoreError(f"configuration {config_key} has complete trials; it cannot be marked invalid")
            stamp = queries.now()
            if not rows:
                return conn.execute(
                    trials.insert().values(
                        uid=queries.new_uid(),
                        study_id=study_id,
                        config_key=config_key,
                        workload_key=workload_key,
                        config_json=config_json,
                        repeat=0,
                        state="INVALID",
                        error=reason,
                        started_at=stamp,
                        finished_at=stamp,
                    )
                ).inserted_primary_key[0]
            ids = [r.id for r in rows]
            conn.execute(measurements.delete().where(measurements.c.trial_id.in_(ids)))
            conn.execute(
                trials.update()
                .where(trials.c.id.in_(ids))
                .values(state="INVALID", error=reason, finished_at=stamp)
            )
            return ids[0]

    # the queue: pending trials, claims, heartbeats

    def enqueue(self, study: str | int, items: list[dict], retry_failed: bool = False) -> int:
        """Queue trials as PENDING, in the order given; return how many were queued.

        Each item has ``config``, ``config_key``, ``workload_key``, ``repeat`` and
        optionally ``benchmark``.  A trial already stored is left as it is
        (queued twice is queued once), except a FAILED one with ``retry_failed``,
        which is queued again.
        """
        queued, inserts = 0, []
        with self._write() as conn:
            study_id = self._study_id(conn, study)
            seq = conn.execute(sa.select(sa.func.coalesce(sa.func.max(trials.c.seq), 0))
                               .where(trials.c.study_id == study_id)).scalar()
            states = {(r.config_key, r.repeat): (r.id, r.state) for r in conn.execute(
                sa.select(trials.c.id, trials.c.config_key, trials.c.repeat, trials.c.state)
                .where(trials.c.study_id == study_id))}
            for item in items:
                key = (item["config_key"], item["repeat"])
                found = states.get(key)
                if found is not None and not (retry_failed and found[1] == "FAILED"):
                    continue
                seq += 1
                values = {"state": "PENDING", "seq": seq, "error": None, "owner": None, "heartbeat_at": None,
                          "started_at": None, "finished_at": None, "uid": queries.new_uid(),
                          "benchmark_json": None if item.get("benchmark") is None
                          else queries.dumps(item["benchmark"], "benchmark")}
                if found is None:
                    inserts.append(dict(
                        study_id=study_id, config_key=item["config_key"], repeat=item["repeat"],
                        workload_key=item["workload_key"], config_json=queries.dumps(item["config"], "configuration"),
                        **values))
                else:
                    conn.execute(measurements.delete().where(measurements.c.trial_id == found[0]))
                    conn.execute(trials.update().where(trials.c.id == found[0]).values(**values))
                states[key] = (None, "PENDING")
                queued += 1
            if inserts:  # one executemany: queueing 10,000 trials is one round trip per batch, not per trial
                conn.execute(trials.insert(), inserts)
        return queued

    def claim(self, study: str | int, owner: str, *, dead_owners: tuple[str, ...] = (),
              stale_before: str | None = None, platform_id: int | None = None) -> TrialRecord | None:
        """Hand the next trial of the queue to ``owner`` as RUNNING, or None when nothing is left to claim.

        Claimable, each kind in queue order: first RUNNING trials whose owner is
        in ``dead_owners`` or whose heartbeat is older than ``stale_before`` (ISO
        8601 UTC: their worker died, so the trial starts again), then PENDING
        trials.  Each is one ordered index lookup (schema v4), however long the queue.
        """
        with self._write() as conn:
            study_id = self._study_id(conn, study)
            takeover: list[sa.ColumnElement[bool]] = []
            if dead_owners:
                takeover.append(trials.c.owner.in_(list(dead_owners)))
            if stale_before is not None:
                takeover.append(sa.func.coalesce(trials.c.heartbeat_at, "") < stale_before)
            trial_id = None
            if takeover:
                trial_id = conn.execute(self._next(conn, study_id, "RUNNING", sa.or_(*takeover))).scalar()
            if trial_id is None:
                trial_id = conn.execute(self._next(conn, study_id, "PENDING")).scalar()
            if trial_id is None:
                return None
            _check_queued_environment(conn, trial_id)
            conn.execute(measurements.delete().where(measurements.c.trial_id == trial_id))
            conn.execute(trials.update().where(trials.c.id == trial_id).values(
                state="RUNNING", owner=owner, heartbeat_at=queries.now(), started_at=queries.now(),
                uid=queries.new_uid(), platform_id=platform_id, error=None, finished_at=None))
            return queries.select_trials(conn, trial_id=trial_id)[0]

    @staticmethod
    def _next(conn: sa.Connection, study_id: int, state: str, *where) -> sa.Select:
        """The first trial of the study in ``state`` (and ``where``) in queue order, locked; others' locks skipped."""
        query = (sa.select(trials.c.id).where(trials.c.study_id == study_id, trials.c.state == state, *where)
                 .order_by(trials.c.seq, trials.c.id).limit(1))
        if conn.dialect.name == "postgresql":
            query = query.with_for_update(skip_locked=True)
        return query

    def set_trial_platform(self, trial_id: int, platform_id: int) -> None:
        """Record where a claimed trial runs (:meth:`register_platform`)."""
        with self._write() as conn:
            conn.execute(trials.update().where(trials.c.id == trial_id).values(platform_id=platform_id))

    def heartbeat(self, trial_id: int, owner: str) -> bool:
        """Renew ``owner``'s claim on a RUNNING trial; False when it no longer holds it."""
        with self._write() as conn:
            result = conn.execute(trials.update().where(trials.c.id == trial_id, trials.c.owner == owner,
                                                        trials.c.state == "RUNNING")
                                  .values(heartbeat_at=queries.now()))
            return result.rowcount == 1

    def release(self, trial_id: int, owner: str) -> None:
        """Give a claimed trial back to the queue (PENDING) without a result, e.g. when interrupted."""
        with self._write() as conn:
            conn.execute(trials.update().where(trials.c.id == trial_id, trials.c.owner == owner,
                                               trials.c.state == "RUNNING")
                         .values(state="PENDING", owner=None, heartbeat_at=None))

    def running_owners(self, study: str | int) -> dict[str, str | None]:
        """Owner -> latest heartbeat of the study's RUNNING trials (to tell live workers from dead ones)."""
        with self._read() as conn:
            study_id = self._study_id(conn, study)
            query = (sa.select(trials.c.owner, sa.func.max(trials.c.heartbeat_at))
                     .where(trials.c.study_id == study_id, trials.c.state == "RUNNING").group_by(trials.c.owner))
            return {owner or "": beat for owner, beat in conn.execute(query)}

    def queue_counts(self, study: str | int) -> dict[str, int]:
        """Trials of the study by state."""
        with self._read() as conn:
            study_id = self._study_id(conn, study)
            query = sa.select(trials.c.state, sa.func.count()).where(trials.c.study_id == study_id) \
                .group_by(trials.c.state)
            return {state: count for state, count in conn.execute(query)}

    # the controller lease: one process at a time asks a study's sampler

    def acquire_controller(self, study: str | int, owner: str, *, dead_owners: tuple[str, ...] = (),
                           stale_before: str | None = None) -> str | None:
        """Make ``owner`` the study's controller; None on success, else the live controller that holds it.

        The lease is free when nobody holds it, ``owner`` already does, its holder
        is in ``dead_owners``, or its last renewal is older than ``stale_before``.
        """
        with self._write() as conn:
            study_id = self._study_id(conn, study)
            row = conn.execute(sa.select(studies.c.controller, studies.c.controller_at)
                               .where(studies.c.id == study_id).with_for_update()).one()
            holder, at = row.controller, row.controller_at
            free = (holder in (None, owner) or holder in dead_owners
                    or (stale_before is not None and (at or "") < stale_before))
            if not free:
                return holder
            conn.execute(studies.update().where(studies.c.id == study_id)
                         .values(controller=owner, controller_at=queries.now()))
            return None

    def renew_controller(self, study: str | int, owner: str) -> bool:
        """Renew ``owner``'s lease; False when another process took it."""
        with self._write() as conn:
            study_id = self._study_id(conn, study)
            result = conn.execute(studies.update().where(studies.c.id == study_id, studies.c.controller == owner)
                                  .values(controller_at=queries.now()))
            return result.rowcount == 1

    def release_controller(self, study: str | int, owner: str) -> None:
        """Give up ``owner``'s lease (at the end of a campaign)."""
        with self._write() as conn:
            study_id = self._study_id(conn, study)
            conn.execute(studies.update().where(studies.c.id == study_id, studies.c.controller == owner)
                         .values(controller=None, controller_at=None))

    def trial_states(self, study_id: int) -> dict[tuple[str, int], str]:
        """{(config_key, repeat): state} of every trial in the study, for planning a resume."""
        with self._read() as conn:
            study_id = self._study_id(conn, study_id)
            query = sa.select(trials.c.config_key, trials.c.repeat, trials.c.state).where(
                trials.c.study_id == study_id
            )
            return {(r.config_key, r.repeat): r.state for r in conn.execute(query)}

    def trial_sources(self, study_id: int) -> list[tuple[str, str | None, dict]]:
        """(config_key, command, extra) of every trial in the study, without phases: what an importer needs to
        know which runs it stored already."""
        with self._read() as conn:
            study_id = self._study_id(conn, study_id)
            query = sa.select(trials.c.config_key, trials.c.command, trials.c.extra_json).where(
                trials.c.study_id == study_id
            )
            return [(r.config_key, r.command, queries.loads(r.extra_json, {}) or {}) for r in conn.execute(query)]

    def running_trials(self, study_id: int) -> list[int]:
        """Ids of trials left RUNNING (by a campaign that died); re-run them with start_trial."""
        with self._read() as conn:
            study_id = self._study_id(conn, study_id)
            query = (
                sa.select(trials.c.id)
                .where(trials.c.study_id == study_id, trials.c.state == "RUNNING")
                .order_by(trials.c.id)
            )
            return list(conn.execute(query).scalars())

    def get_trial(self, trial_id: int) -> TrialRecord:
        """One trial with its phases; StoreError if there is none with that id."""
        with self._read() as conn:
            found = queries.select_trials(conn, trial_id=trial_id)
        if not found:
            raise StoreError(f"no trial with id {trial_id} in {masked(self.url)}")
        return found[0]

    def trials(self, study: str | int | None = None, state: str | None = None,
               config_keys=None) -> list[TrialRecord]:
        """Trials (of one study, by name or id, in one state, of some configurations) with config, hints, phases."""
        if state is not None and state not in TRIAL_STATES:
            raise StoreError(f"unknown trial state {state!r}; use one of {', '.join(TRIAL_STATES)}")
        keys = None if config_keys is None else list(config_keys)
        with self._read() as conn:
            study_id = None if study is None else self._study_id(conn, study)
            if keys is not None and len(keys) > 500:  # keep IN lists short: filter in Python instead
                found = queries.select_trials(conn, study_id=study_id, state=state)
                wanted = set(keys)
                return _with_rounds(conn, [t for t in found if t.config_key in wanted])
            return _with_rounds(conn, queries.select_trials(conn, study_id=study_id, state=state, config_keys=keys))

    def rows(self, study: str | int | None = None) -> list[dict]:
        """Flat rows, one per measured phase (and one per trial without phases), for tables and models."""
        with self._read() as conn:
            study_id = None if study is None else self._study_id(conn, study)
            return queries.flat_rows(conn, study_id)

    # models

    def save_model(self, study_id: str | int, model: dict, blob: bytes, fmt: str) -> int:
        """Store a model's record (see :func:`iotune.store.model_rows.insert`) and its ``blob`` in format ``fmt``
        in a study (by id or name); return its row id.  A model of the same name is replaced."""
        with self._write() as conn:
            return model_rows.insert(conn, self._study_id(conn, study_id), model, blob, fmt)

    def model_blob(self, study: str | int, name: str | None = None) -> tuple[ModelRecord, bytes, str]:
        """The study's model ``name`` (its newest when None): its record, its blob and the blob's format.

        StoreError when the study has no such model.
        """
        with self._read() as conn:
            study_id = self._study_id(conn, study)
            row = model_rows.latest(conn, study_id, name)
        if row is None:
            raise no_model(study, name)
        return model_rows.record(row), bytes(row.blob), row.format

    def list_models(self, study: str | int | None = None) -> list[ModelRecord]:
        """Stored models (of one study, by name or id), without their estimators."""
        with self._read() as conn:
            study_id = None if study is None else self._study_id(conn, study)
            return model_rows.select(conn, study_id)

    # imports

    @contextmanager
    def bulk_import(self) -> Iterator[BulkImport]:
        """One write transaction for an import (:mod:`iotune.store.exchange`): all of it kept or none.

        Not shielded from signals, unlike every other transaction: an import may take minutes and Ctrl-C must
        stop it at once (the rollback leaves the store as it was)."""
        with self._transaction(write=True, shield=False) as conn:
            yield _SqlBulkImport(conn)

    def source(self) -> dict:
        database = self._engine.url.database if self.backend == "sqlite" else masked(self.url)
        return {"host": socket.gethostname(), "db": database}


class _SqlBulkImport(BulkImport):
    """An import's writes on one SQLAlchemy connection, each a statement for many rows."""

    def __init__(self, conn: sa.Connection):
        self.conn = conn

    def platform(self, info: dict) -> int:
        return queries.ensure_platform(self.conn, info)

    def study(self, name: str) -> StudyRecord | None:
        row = queries.study_by_name(self.conn, name)
        return None if row is None else queries.study_record(row)

    def add_study(self, **fields) -> int:
        return queries.insert_study(self.conn, **fields)

    def present(self, uids: list[str]) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(uids), 500):
            found.update(self.conn.execute(sa.select(trials.c.uid).where(trials.c.uid.in_(uids[start:start + 500]))
                                           ).scalars())
        return found

    def repeats(self, study_id: int):
        query = sa.select(trials.c.config_key, trials.c.repeat).where(trials.c.study_id == study_id)
        return iter(self.conn.execute(query).all())

    def add_trials(self, rows: list[dict], phases: dict) -> None:
        if not rows:
            return
        self.conn.execute(trials.insert(), rows)  # one executemany: a statement per trial made imports 10x slower
        values: list[dict] = []
        added = list(phases)
        for start in range(0, len(added), 500):
            query = sa.select(trials.c.id, trials.c.uid).where(trials.c.uid.in_(added[start:start + 500]))
            for trial_id, uid in self.conn.execute(query):
                values.extend(queries.phase_values(trial_id, phase) for phase in phases[uid])
        if values:
            self.conn.execute(measurements.insert(), values)


INT64_MAX = 2**63 - 1


def _impossible_as_failed(measurement: Measurement) -> Measurement:
    """A COMPLETE measurement with a time or size that cannot be (NaN, infinite, negative, a phase of 0 s, a count
    past 64 bits) as a FAILED one saying
    which, so that a broken runner's output is recorded as its failure instead of winning or breaking the store."""
    if measurement.status != "COMPLETE":
        return measurement
    for phase in measurement.phases:
        for name in ("seconds", "open_seconds", "transfer_seconds", "close_seconds", "bytes", "ops"):
            value = getattr(phase, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                continue  # missing or not a number: the schema refuses it, and the whole commit with it
            if not math.isfinite(value) or value < 0:
                why = "not a finite number >= 0"
            elif name == "seconds" and value == 0:
                why = "no time (a bandwidth would divide by it)"
            elif isinstance(value, int) and value > INT64_MAX:
                why = "more than a 64-bit integer holds"
            else:
                continue
            return dataclasses.replace(measurement, status="FAILED", phases=[], error=(
                f"the runner reported {phase.phase} {name} = {value!r}, {why}; the measurement is not kept"))
    return measurement


def _require_existing(url: str) -> None:
    parsed = sa.engine.make_url(url)
    path = parsed.database
    if parsed.get_backend_name() == "sqlite" and path and path != ":memory:":
        require_file(path)


def _with_rounds(conn, found: list[TrialRecord]) -> list[TrialRecord]:
    """``found`` with each raced trial's ``race_round`` from its study's settings (one read per study)."""
    ids = {t.study_id for t in found}
    if not ids:
        return found
    query = sa.select(studies.c.id, studies.c.settings_json).where(studies.c.id.in_(ids))
    return with_rounds(found, {row.id: row.settings_json for row in conn.execute(query)})
