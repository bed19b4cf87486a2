"""Turn what the user gave (None, a path, a URL) into a SQLAlchemy engine set up for safe sharing.

SQLite gets write-ahead logging (a crash leaves the last committed state, and
readers never block the writer), a busy timeout (several campaign processes
may share one file) and foreign keys.  Write transactions start with
``BEGIN IMMEDIATE`` so two writers queue on the busy timeout instead of one
failing when it upgrades a read lock.

A SQLite file is looked at read-only before any of that (:func:`check_sqlite_file`):
only a new or empty file, or an iotune store, is ever written to; anything else
(someone else's database, a corrupt file, a device) is refused untouched.

A reading command opens its store read-only (:func:`create_engine` with
``read_only``): SQLite's ``mode=ro``, ``immutable=1`` when no write-ahead log is
there (:func:`read_only_uri`).

SQLAlchemy is imported when an engine is made, not with this module: the
reading commands' SQLite path (:mod:`iotune.store.reader`) uses the rest of it
without SQLAlchemy's import (a sixth of a second).
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from iotune.errors import StoreError
from iotune.store.version import SCHEMA_VERSION

if TYPE_CHECKING:
    import sqlalchemy as sa
    from sqlalchemy.engine import URL

DEFAULT_DB = "iotune.db"
BUSY_TIMEOUT_MS = 30_000
WRITE = "iotune_write"
SQLITE_MAGIC = b"SQLite format 3\x00"


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
    if "@" not in url:
        return url  # no user part, no password (a SQLite path): SQLAlchemy's parser need not be loaded
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        head, sep, tail = url.partition("://")
        if sep and "@" in tail:
            creds, _, rest = tail.rpartition("@")
            user = creds.split(":", 1)[0]
            return f"{head}://{user}:***@{rest}" if ":" in creds else url
        return url


def _parse(url: str) -> URL:
    from sqlalchemy.engine import make_url

    try:
        return make_url(url)
    except Exception as exc:
        raise StoreError(f"cannot read store URL {masked(url)!r}: {first_line(exc)}") from None


def _sqlite_events(engine: sa.Engine, read_only: bool) -> None:
    import sqlalchemy as sa

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record):
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves, below
        cursor = dbapi_conn.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        if engine.url.database not in (None, "", ":memory:") and not read_only:
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = FULL")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn):
        mode = "IMMEDIATE" if conn.get_execution_options().get(WRITE) else "DEFERRED"
        conn.exec_driver_sql(f"BEGIN {mode}")


def require_file(path: str) -> None:
    """StoreError when there is no file at ``path``: a command that needs a store does not create one."""
    if not os.path.exists(path):
        raise StoreError(f"no store at {path}: check --db (bench, tune, screen and import create one)")


def check_sqlite_file(path: str | os.PathLike) -> None:
    """Refuse, without changing it, a file that is neither new, empty, nor an iotune store.

    Looks only: the file's first bytes, then a read-only connection
    (``immutable=1`` when no write-ahead log exists, so that not even ``-wal``
    and ``-shm`` files appear beside someone else's database).
    """
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"cannot use {path} as a store: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise StoreError(f"{path} is not a regular file; a store is an SQLite file or a database URL")
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not head:
        return
    if head != SQLITE_MAGIC:
        raise StoreError(f"{path} is not an SQLite database (nor an iotune store); it was left unchanged")
    mode = "ro" if Path(f"{path}-wal").exists() else "ro&immutable=1"
    try:
        conn = sqlite3.connect(f"file:{quote(str(path.absolute()))}?mode={mode}", uri=True)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open {path} read-only to check it: {exc}") from None
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        version = None
        if "meta" in tables:
            version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.Error as exc:
        raise StoreError(f"{path} is a corrupt SQLite database or not an iotune store ({exc}); "
                         "it was left unchanged") from None
    finally:
        conn.close()
    if not tables:
        return
    if version is not None and str(version[0]).isdigit() and int(version[0]) > SCHEMA_VERSION:
        raise StoreError(f"{path} has store schema version {version[0]}, newer than this iotune understands "
                         f"({SCHEMA_VERSION}); upgrade iotune (the file was left unchanged)")
    if version is None or not str(version[0]).isdigit():
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise StoreError(f"{path} is an SQLite database with tables {shown} but no iotune schema_version: "
                         "not an iotune store; it was left unchanged")


def read_only_uri(path: str | os.PathLike) -> str:
    """The SQLite URI that opens ``path`` read-only.

    ``mode=ro`` alone opens a write-ahead-logged file by making its ``-wal`` and ``-shm`` files, which it then
    leaves behind, and cannot where nothing can be made (a read-only mount: "unable to open database file").
    With no ``-wal`` file no writer has the store open, and ``immutable=1`` reads it without either (as
    :func:`check_sqlite_file` does); a writer that opens it during the read may make the read fail, never
    the store.  With a ``-wal`` file (a writer at work), ``mode=ro`` reads what it committed there.
    """
    path = Path(path).absolute()
    return f"file:{quote(str(path))}?mode=ro" + ("" if Path(f"{path}-wal").exists() else "&immutable=1")


def create_engine(url: str, read_only: bool = False) -> sa.Engine:
    """An engine for ``url`` that has connected once, or StoreError naming the (masked) URL.

    A SQLite file is checked first (:func:`check_sqlite_file`); ``read_only`` opens it read-only.
    """
    import sqlalchemy as sa

    parsed = _parse(url)
    kwargs: dict = {}
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:") \
            and not parsed.database.startswith("file:"):
        check_sqlite_file(parsed.database)
        if read_only:
            uri = read_only_uri(parsed.database)
            kwargs["creator"] = lambda: sqlite3.connect(uri, uri=True, check_same_thread=False)
    if parsed.get_backend_name() == "postgresql" and "connect_timeout" not in parsed.query:
        kwargs["connect_args"] = {"connect_timeout": 10}
    try:
        engine = sa.create_engine(parsed, **kwargs)
    except Exception as exc:
        raise StoreError(f"cannot open store {masked(url)}: {first_line(exc)}") from None
    if engine.dialect.name == "sqlite":
        _sqlite_events(engine, read_only)
    return engine


CORRUPT = ("database disk image is malformed", "file is not a database", "could not decode to utf-8")
"""What SQLite (and Python's driver, for text that is not UTF-8, which iotune never writes) says of a damaged file."""


def is_corrupt(exc: BaseException) -> bool:
    """Whether a driver error says the database file is damaged."""
    text = str(getattr(exc, "orig", None) or exc).lower()
    return any(sign in text for sign in CORRUPT)


def first_line(exc: BaseException) -> str:
    """The first meaningful line of a driver error, without SQLAlchemy's background link."""
    orig = getattr(exc, "orig", None) or exc
    for line in str(orig).splitlines():
        line = line.strip()
        if line:
            return line
    return type(orig).__name__
