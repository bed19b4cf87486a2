"""The store's tables (schema version 4) and the check that runs when a database is opened.

Version 2 added ``models``: trained predictors and their provenance per study.
Version 3 added the queue that lets several workers share a study: a trial may
be PENDING (asked for, not yet claimed); a RUNNING trial has an ``owner`` (the
worker that claimed it: host, pid and that process's start time) and a
``heartbeat_at``; ``seq`` orders the queue.  A study keeps its whole campaign
spec (``spec_yaml``) and the lease of the one process that asks its sampler
for configurations (``controller``, ``controller_at``).  A model row says the
``format`` of its blob (v2 rows are ``pickle``, which iotune no longer loads).
Version 4 indexes the queue in its order (study, state, seq, id), so that
claiming the next trial reads the first unlocked index entry instead of
sorting every pending trial (docs/benchmarks.md: "The queue in one PostgreSQL").

JSON documents (configurations, hints, settings) live in text columns written
with canonical JSON, so SQLite and PostgreSQL hold byte-identical values.
Times are ISO 8601 text in UTC for the same reason.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa

from iotune.errors import StoreError
from iotune.store.version import SCHEMA_VERSION, check_readable

metadata = sa.MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
    }
)

meta = sa.Table(
    "meta",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)

platforms = sa.Table(
    "platforms",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("fingerprint", sa.String(40), nullable=False, unique=True),
    sa.Column("hostname", sa.Text),
    sa.Column("kernel", sa.Text),
    sa.Column("os", sa.Text),
    sa.Column("cpu", sa.Text),
    sa.Column("cores", sa.Integer),
    sa.Column("fs_type", sa.Text),
    sa.Column("mpi_library", sa.Text),
    sa.Column("mpi_version", sa.Text),
    sa.Column("iotune_version", sa.Text),
    sa.Column("python_version", sa.Text),
    sa.Column("info_json", sa.Text, nullable=False),
)

studies = sa.Table(
    "studies",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(255), nullable=False, unique=True),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("description", sa.Text, nullable=False, default=""),
    sa.Column("space_hash", sa.String(128), nullable=False),
    sa.Column("space_yaml", sa.Text, nullable=False),
    sa.Column("settings_json", sa.Text, nullable=False),
    sa.Column("origin", sa.Text),
    sa.Column("spec_yaml", sa.Text),
    sa.Column("controller", sa.Text),
    sa.Column("controller_at", sa.String(40)),
)

trials = sa.Table(
    "trials",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("uid", sa.String(32), nullable=False, unique=True),
    sa.Column("study_id", sa.Integer, sa.ForeignKey("studies.id", ondelete="CASCADE"), nullable=False),
    sa.Column("platform_id", sa.Integer, sa.ForeignKey("platforms.id"), nullable=True),
    sa.Column("config_key", sa.String(64), nullable=False),
    sa.Column("workload_key", sa.String(64), nullable=False),
    sa.Column("config_json", sa.Text, nullable=False),
    sa.Column("repeat", sa.Integer, nullable=False),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("error", sa.Text),
    sa.Column("started_at", sa.String(40)),
    sa.Column("finished_at", sa.String(40)),
    sa.Column("runner", sa.Text),
    sa.Column("command", sa.Text),
    sa.Column("hints_requested_json", sa.Text),
    sa.Column("hints_in_effect_json", sa.Text),
    sa.Column("read_cache_mode", sa.Text),
    sa.Column("wall_seconds", sa.Float),
    sa.Column("extra_json", sa.Text),
    sa.Column("benchmark_json", sa.Text),
    sa.Column("imported_from", sa.Text),
    sa.Column("owner", sa.Text),
    sa.Column("heartbeat_at", sa.String(40)),
    sa.Column("seq", sa.BigInteger),
    sa.UniqueConstraint("study_id", "config_key", "repeat"),
    sa.CheckConstraint("state IN ('PENDING', 'RUNNING', 'COMPLETE', 'FAILED', 'INVALID')", name="state"),
    sa.Index(None, "study_id", "state", "seq", "id"),
)

measurements = sa.Table(
    "measurements",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("trial_id", sa.Integer, sa.ForeignKey("trials.id", ondelete="CASCADE"), nullable=False),
    sa.Column("phase", sa.String(32), nullable=False),
    sa.Column("bytes", sa.BigInteger, nullable=False),
    sa.Column("seconds", sa.Float, nullable=False),
    sa.Column("open_seconds", sa.Float),
    sa.Column("transfer_seconds", sa.Float),
    sa.Column("close_seconds", sa.Float),
    sa.Column("ops", sa.BigInteger),
    sa.Column("verify_errors", sa.BigInteger),
    sa.Column("bandwidth_mib", sa.Float),
    sa.Index(None, "trial_id"),
)

models = sa.Table(
    "models",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(255), nullable=False),
    sa.Column("study_id", sa.Integer, sa.ForeignKey("studies.id", ondelete="CASCADE"), nullable=False),
    sa.Column("predictor", sa.String(64), nullable=False),
    sa.Column("target", sa.String(32), nullable=False),
    sa.Column("categorical", sa.String(32), nullable=False),
    sa.Column("params_json", sa.Text, nullable=False),
    sa.Column("data_hash", sa.String(64), nullable=False),
    sa.Column("space_hash", sa.String(128), nullable=False),
    sa.Column("n_samples", sa.Integer, nullable=False),
    sa.Column("metrics_json", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("blob", sa.LargeBinary, nullable=False),
    sa.Column("format", sa.String(32), nullable=False, server_default="pickle"),
    sa.UniqueConstraint("study_id", "name"),
)


def _add_models(conn: sa.Connection) -> None:
    """Version 1 -> 2: add the ``models`` table; nothing else changes."""
    models.create(conn, checkfirst=True)


def _add_queue(conn: sa.Connection) -> None:
    """Version 2 -> 3: PENDING trials, owners, heartbeats and queue order; whole specs and leases; model formats."""
    inspector = sa.inspect(conn)
    for table, columns in (("trials", ("owner TEXT", "heartbeat_at VARCHAR(40)", "seq BIGINT")),
                           ("studies", ("spec_yaml TEXT", "controller TEXT", "controller_at VARCHAR(40)")),
                           ("models", ("format VARCHAR(32) NOT NULL DEFAULT 'pickle'",))):
        present = {c["name"] for c in inspector.get_columns(table)}
        for column in columns:
            if column.split()[0] not in present:  # a models table made by step 1 -> 2 is already current
                conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {column}")
    allowed = "state IN ('PENDING', 'RUNNING', 'COMPLETE', 'FAILED', 'INVALID')"
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("ALTER TABLE trials DROP CONSTRAINT ck_trials_state")
        conn.exec_driver_sql(f"ALTER TABLE trials ADD CONSTRAINT ck_trials_state CHECK ({allowed})")
    elif conn.dialect.name == "sqlite":
        # SQLite cannot alter a CHECK constraint: rewrite the table's stored definition (its documented
        # writable_schema procedure, safe here because the new constraint only admits more rows)
        old = conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE type='table' AND name='trials'").scalar_one()
        new = old.replace("state IN ('RUNNING', 'COMPLETE', 'FAILED', 'INVALID')", allowed)
        if new == old:
            raise StoreError("store schema 2 -> 3: the trials table's state constraint has an unexpected form")
        version = conn.exec_driver_sql("PRAGMA schema_version").scalar_one()
        conn.exec_driver_sql("PRAGMA writable_schema = ON")
        conn.execute(sa.text("UPDATE sqlite_master SET sql = :new WHERE type = 'table' AND name = 'trials'"),
                     {"new": new})
        conn.exec_driver_sql(f"PRAGMA schema_version = {int(version) + 1}")
        conn.exec_driver_sql("PRAGMA writable_schema = OFF")


def _index_queue(conn: sa.Connection) -> None:
    """Version 3 -> 4: the (study, state) index becomes (study, state, seq, id), the queue's order."""
    conn.exec_driver_sql("DROP INDEX IF EXISTS ix_trials_study_id_state")
    for index in trials.indexes:
        index.create(conn, checkfirst=True)


# Upgrade steps: MIGRATIONS[v] takes a version-v database to version v + 1.
MIGRATIONS: dict[int, Callable[[sa.Connection], None]] = {1: _add_models, 2: _add_queue, 3: _index_queue}


def _migrate(conn: sa.Connection, from_version: int) -> None:
    """Bring a database at ``from_version`` up to SCHEMA_VERSION, step by step, in the caller's transaction."""
    version = from_version
    while version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise StoreError(
                f"store schema version {version} cannot be upgraded to {SCHEMA_VERSION}: no migration known"
            )
        step(conn)
        version += 1
    conn.execute(meta.update().where(meta.c.key == "schema_version").values(value=str(version)))


def check_schema(conn: sa.Connection, where: str) -> None:
    """What a reader needs, changing nothing: an iotune store of this iotune's schema version."""
    version = None
    if sa.inspect(conn).has_table("meta"):
        row = conn.execute(sa.select(meta.c.value).where(meta.c.key == "schema_version")).first()
        version = str(row[0]) if row else ""
    check_readable(version, where)


def ensure_schema(conn: sa.Connection, where: str) -> None:
    """Create the tables in an empty database, check the version of an existing one, migrate an old one.

    ``where`` names the database in error messages (password hidden).
    """
    inspector = sa.inspect(conn)
    if not inspector.has_table("meta"):
        other = [name for name in ("studies", "trials") if inspector.has_table(name)]
        if other:
            raise StoreError(f"{where} has tables {', '.join(other)} but no iotune meta table: not an iotune store")
        metadata.create_all(conn)
        conn.execute(meta.insert().values(key="schema_version", value=str(SCHEMA_VERSION)))
        return
    row = conn.execute(sa.select(meta.c.value).where(meta.c.key == "schema_version")).first()
    try:
        version = int(row[0]) if row else None
    except ValueError:
        version = None
    if version is None:
        raise StoreError(f"{where} has no readable schema_version in its meta table")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{where} has store schema version {version}, newer than this iotune understands "
            f"({SCHEMA_VERSION}); upgrade iotune"
        )
    if version < SCHEMA_VERSION:
        _migrate(conn, version)
