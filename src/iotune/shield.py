"""Sections that a signal does not cut in two: a store commit, a directory made or removed, a world torn down.

A signal turned into KeyboardInterrupt (:mod:`iotune.cli.signals`) is raised
between any two bytecodes of the main thread.  Raised inside SQLAlchemy's
commit or connection return, it left a connection holding SQLite's write lock
while the exception travelled up (so the campaign's own last writes waited 30 s
and failed "database is locked"), or an ``AssertionError`` in its transaction
bookkeeping; raised between ``mkdtemp`` and the assignment of its result, or
inside ``rmtree``, it left a trial directory behind.

Within :func:`shielded`, :func:`interrupt` only notes the signal; the
KeyboardInterrupt is raised when the outermost section ends.  A second signal
during a section is raised at once, so a section that hangs can still be
interrupted.  Sections must therefore be short and bounded.
"""

from __future__ import annotations

import contextlib
import threading

_state = {"depth": 0, "pending": False, "taken": 0}


def _main() -> bool:
    return threading.current_thread() is threading.main_thread()


def interrupt(signum: int | None = None) -> None:
    """What a signal handler does: raise KeyboardInterrupt now, or when the current shielded section ends."""
    _state["taken"] += 1
    if _main() and _state["depth"] > 0 and not _state["pending"]:
        _state["pending"] = True
        return
    raise KeyboardInterrupt


@contextlib.contextmanager
def shielded():
    """A block that :func:`interrupt` does not cut; a signal that arrived during it is raised at its end."""
    if not _main():
        yield
        return
    _state["depth"] += 1
    try:
        yield
    finally:
        _state["depth"] -= 1
        if _state["depth"] == 0 and _state["pending"]:
            _state["pending"] = False
            raise KeyboardInterrupt


def taken() -> int:
    """How many signals :func:`interrupt` has taken in this process (a mark for :func:`check`)."""
    return _state["taken"]


def check(since: int) -> None:
    """Raise KeyboardInterrupt if a signal was taken after the mark ``since`` while the loop calling this still
    runs: its KeyboardInterrupt was lost.  A handler runs wherever the main thread is, and Python drops an
    exception raised inside ``__del__`` or a garbage-collector callback; one raised inside ``__set_name__``
    (a class being made, as in an import) becomes a RuntimeError that a library's ``except Exception`` eats.
    Called outside shielded sections, between trials."""
    if _state["taken"] > since and _state["depth"] == 0:
        raise KeyboardInterrupt
