"""A call repeated from a thread while a block runs: a worker's heartbeat, a controller's lease."""

from __future__ import annotations

import threading
from collections.abc import Callable

from iotune.errors import IotuneError


class Renewal:
    """Calls ``renew()`` every ``every`` seconds from a daemon thread while the ``with`` block runs.

    A failing call (a busy or closed store) is ignored: the next one tries
    again, and the grace period other processes allow is several intervals.
    """

    def __init__(self, renew: Callable[[], object], every: float, name: str):
        self.renew, self.every = renew, every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self.renew()
            except IotuneError:
                pass

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
