"""A SQLite store held by identity: the file a run opened, not whatever is at its path now.

Replaced, deleted or moved while a campaign ran, the file at the path was no
longer the one the open connections wrote to: the run wrote on into the
unlinked (or moved) file and said "55 trials completed" while the path held
none of them (issue 32).  The device and inode noted at opening are compared
with the path's before every write; where the opened file went is read from
``/proc/self/fd``, which names an open file's current path (" (deleted)"
appended once it has no name).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from iotune.errors import StoreError


class StoreMovedError(StoreError):
    """The store's path no longer names the file this process opened; writing on would lose what it writes."""


def file_identity(path: str | os.PathLike | None) -> tuple[int, int] | None:
    """(device, inode) of the file at ``path``; None for an in-memory database or one that is not there."""
    if path in (None, "", ":memory:"):
        return None
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


class HeldFile:
    """The SQLite file a Store opened at ``path``, with a connection of its own kept open (with its write-ahead
    log) through which :meth:`check` saves the run's trials once the path names another file."""

    def __init__(self, path: str, identity: tuple[int, int]):
        self.path, self.identity = path, identity
        self.connection = sqlite3.connect(path, check_same_thread=False)
        self.connection.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opens its -wal and -shm too
        self.moved: str | None = None

    @classmethod
    def of(cls, path: str | None) -> HeldFile | None:
        identity = file_identity(path)
        return cls(str(path), identity) if identity is not None else None

    def close(self) -> None:
        self.connection.close()

    def check(self) -> None:
        """StoreMovedError, in one line saying where the opened file and its trials are, if the path names
        another file now (said the same way each time it is asked again).

        Moved, the opened file is made whole where it is now (its write-ahead log, left at the old path, is
        checkpointed into it); deleted, its content is saved beside the path (``VACUUM INTO``).
        """
        if self.moved is None:
            now = file_identity(self.path)
            if now == self.identity:
                return
            went = self._save(_opened_path(self.identity))
            happened = went if now is None else f"replaced by another file (the one it opened was {went})"
            self.moved = (f"the store {self.path} is no longer the file this run opened: it was {happened}; stopped "
                          "before writing anything more (continue with --resume on the store you mean)")
        raise StoreMovedError(self.moved)

    def _save(self, where: str | None) -> str:
        moved = where is not None and not where.endswith(" (deleted)")
        try:
            if moved:
                self.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                return f"moved to {where}: the trials this run stored are there"
            saved = Path(self.path).with_name(f"{Path(self.path).name}.saved-{os.getpid()}")
            self.connection.execute("VACUUM INTO ?", (str(saved),))
            return f"deleted: the trials this run stored are saved in {saved}"
        except sqlite3.Error as exc:
            return f"{'moved to ' + str(where) if moved else 'deleted'}, and what this run stored could not be " \
                   f"saved ({exc})"


def _opened_path(identity: tuple[int, int]) -> str | None:
    """The current path of a file this process has open with ``identity`` (Linux), else None."""
    fds = Path("/proc/self/fd")
    try:
        entries = list(fds.iterdir())
    except OSError:
        return None
    for entry in entries:
        try:
            info = os.stat(entry)
            if (info.st_dev, info.st_ino) == identity:
                return os.readlink(entry)
        except OSError:
            continue
    return None
