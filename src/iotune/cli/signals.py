"""SIGTERM and SIGHUP end a command the way Ctrl-C does, and the exit status says which signal it was.

Each raises KeyboardInterrupt in the main thread, so a campaign stops as on
Ctrl-C: the trial in flight stays RUNNING for ``--resume``, worker worlds and
testbeds are torn down by the ``with``/``finally`` blocks that own them.  The
exit status is 128 + the signal number, as a shell reports a process killed by
it: 130 (SIGINT), 143 (SIGTERM), 129 (SIGHUP).
"""

from __future__ import annotations

import contextlib
import signal
import threading

HANDLED = (signal.SIGTERM, signal.SIGHUP)
_received: list[int] = []


def raise_interrupt(signum, frame) -> None:
    """Signal handler: remember ``signum`` and raise KeyboardInterrupt."""
    _received.append(signum)
    raise KeyboardInterrupt


def interrupted_by() -> signal.Signals:
    """The first signal caught since :func:`interrupts` began (SIGINT when none: Python's own Ctrl-C)."""
    return signal.Signals(_received[0] if _received else signal.SIGINT)


def exit_status() -> int:
    """128 + the number of :func:`interrupted_by`."""
    return 128 + interrupted_by()


@contextlib.contextmanager
def interrupts():
    """Within the block, SIGTERM and SIGHUP raise KeyboardInterrupt; the previous handlers come back after.

    A signal already ignored (SIGHUP under ``nohup``) stays ignored.  Outside the
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
