"""Send this process a signal at an exact point of its own code: the call of, or the return from, a function.

Races of a signal with a commit or a cleanup are thereby reproduced every time rather than by luck:
``sys.settrace`` watches for the function, and the signal is sent from the trace function, so that the
KeyboardInterrupt of :mod:`iotune.cli.signals` is raised right there (or deferred, inside a shielded section).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys


@contextlib.contextmanager
def signal_at(name: str, event: str = "return", signum: int = signal.SIGTERM, where=None):
    """While the block runs, send ``signum`` once, at the first ``event`` ("call" or "return") of a function
    named ``name`` (and for which ``where(frame)`` holds, when given); yields a dict whose "sent" says if it was."""
    state = {"sent": False}

    def local(frame, what, arg):
        if what == "return" and not state["sent"]:
            state["sent"] = True
            sys.settrace(None)
            os.kill(os.getpid(), signum)
        return local

    def tracer(frame, what, arg):
        if state["sent"] or frame.f_code.co_name != name or (where is not None and not where(frame)):
            return None
        if event == "call":
            state["sent"] = True
            sys.settrace(None)
            os.kill(os.getpid(), signum)
            return None
        return local

    sys.settrace(tracer)
    try:
        yield state
    finally:
        sys.settrace(None)
