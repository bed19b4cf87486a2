"""SIGTERM and SIGHUP end a command the way Ctrl-C does, and the exit status says which signal it was.

Each raises KeyboardInterrupt in the main thread (SIGINT too, through the same
handler), so a campaign stops as on Ctrl-C: the trial in flight stays RUNNING
for ``--resume``, worker worlds and testbeds are torn down by the
``with``/``finally`` blocks that own them.  Inside a section that must not be
cut in two (a store commit, a directory made or removed) the KeyboardInterrupt
waits for the section's end (:mod:`iotune.shield`).  The
exit status is 128 + the signal number, as a shell reports a process killed by
it: 130 (SIGINT), 143 (SIGTERM), 129 (SIGHUP).
"""

from __future__ import annotations

import contextlib
import signal
import threading

from iotune import shield

HANDLED = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
_received: list[int] = []


def raise_interrupt(signum, frame) -> None:
    """Signal handler: remember ``signum`` and raise KeyboardInterrupt (at the end of a shielded section)."""
    _received.append(signum)
    shield.interrupt(signum)


def interrupted_by() -> signal.Signals:
    """The first signal caught since :func:`interrupts` began (SIGINT when none: Python's own Ctrl-C)."""
    return signal.Signals(_received[0] if _received else signal.SIGINT)


def caught() -> bool:
    """Whether a signal was caught since :func:`interrupts` began."""
    return bool(_received)


def end_on_the_next() -> None:
    """From now on SIGTERM, SIGHUP and SIGINT end the process by their default action (unless ignored)."""
    if threading.current_thread() is threading.main_thread():
        for signum in HANDLED:
            if signal.getsignal(signum) != signal.SIG_IGN:
                signal.signal(signum, signal.SIG_DFL)


def wraps_interrupt(error: BaseException) -> bool:
    """Whether ``error`` stands for a caught signal's KeyboardInterrupt: one raised inside ``__set_name__`` (a
    class being made, as in an import) reaches the caller as a RuntimeError caused by it."""
    seen = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return caught()
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def exit_status() -> int:
    """128 + the number of :func:`interrupted_by`."""
    return 128 + interrupted_by()


@contextlib.contextmanager
def interrupts():
    """Within the block, SIGTERM, SIGHUP and SIGINT raise KeyboardInterrupt; the previous handlers come back after.

    A signal already ignored (SIGHUP under ``nohup``, SIGINT in a background job) stays ignored.  Outside the
    main thread, where Python cannot install handlers, nothing changes.
    """
    _received.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, raise_interrupt) for signum in HANDLED
                if signal.getsignal(signum) != signal.SIG_IGN}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
