"""Turn what the user gave (None, a path, a URL) into a SQLAlchemy engine set up for safe sharing.

SQLite gets write-ahead logging (a crash leaves the last committed state, and
readers never block the writer), a busy timeout (several campaign processes
may share one file) and foreign keys.  Write transactions start with
``BEGIN IMMEDIATE`` so two writers queue on the busy timeout instead of one
failing when it upgrades a read lock.
"""

from __future__ import annotations

import os
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url

from iotune.errors import StoreError

DEFAULT_DB = "iotune.db"
BUSY_TIMEOUT_MS = 30_000
WRITE = "iotune_write"


def normalize_url(url: str | os.PathLike | None) -> str:
    """Return a database URL: None is ``iotune.db`` in the working directory, a path becomes a sqlite URL."""
    if url is None:
        url = DEFAULT_DB
    text = os.fspath(url)
    if "://" in text:
        return text
    if not text:
        raise StoreError("store URL is empty; give a database URL or a file path")
    return "sqlite:///" + str(Path(text).expanduser().absolute())


def masked(url: str) -> str:
    """The URL with any password replaced by ***, safe for messages and logs."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        head, sep, tail = url.partition("://")
        if sep and "@" in tail:
            creds, _, rest = tail.rpartition("@")
            user = creds.split(":", 1)[0]
            return f"{head}://{user}:***@{rest}" if ":" in creds else url
        return url


def _parse(url: str) -> URL:
    try:
        return make_url(url)
    except Exception as exc:
        raise StoreError(f"cannot read store URL {masked(url)!r}: {first_line(exc)}") from None


def _sqlite_events(engine: sa.Engine) -> None:
    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record):
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves, below
        cursor = dbapi_conn.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        if engine.url.database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = FULL")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn):
        mode = "IMMEDIATE" if conn.get_execution_options().get(WRITE) else "DEFERRED"
        conn.exec_driver_sql(f"BEGIN {mode}")


def create_engine(url: str) -> sa.Engine:
    """An engine for ``url`` that has connected once, or StoreError naming the (masked) URL."""
    parsed = _parse(url)
    kwargs: dict = {}
    if parsed.get_backend_name() == "postgresql" and "connect_timeout" not in parsed.query:
        kwargs["connect_args"] = {"connect_timeout": 10}
    try:
        engine = sa.create_engine(parsed, **kwargs)
    except Exception as exc:
        raise StoreError(f"cannot open store {masked(url)}: {first_line(exc)}") from None
    if engine.dialect.name == "sqlite":
        _sqlite_events(engine)
    return engine


def first_line(exc: BaseException) -> str:
    """The first meaningful line of a driver error, without SQLAlchemy's background link."""
    orig = getattr(exc, "orig", None) or exc
    for line in str(orig).splitlines():
        line = line.strip()
        if line:
            return line
    return type(orig).__name__
