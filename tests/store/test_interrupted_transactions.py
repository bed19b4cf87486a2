"""A signal at the worst moment of a store transaction leaves no lock held and no half-done bookkeeping.

The campaign's shutdown (worker gives its trial back, controller gives up its lease) writes to the store
while the KeyboardInterrupt of SIGTERM travels up; a connection left holding SQLite's write lock then made
those writes wait 30 s and fail "database is locked" (exit 2 instead of 143).
"""

import signal
import sqlite3

import pytest
from tests.signal_at import signal_at

from iotune import shield
from iotune.cli import signals
from iotune.store import Store


def _write_lock_free(path) -> bool:
    conn = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()


def _of_transaction(frame) -> bool:
    generator = getattr(frame.f_locals.get("self"), "gen", None)
    return getattr(generator, "__name__", "") == "_transaction"


@pytest.mark.parametrize(("name", "event"), [("__enter__", "return"), ("__exit__", "call"), ("commit", "call"),
                                             ("close", "call")])
def test_a_signal_inside_a_write_leaves_the_lock_free_while_it_travels(tmp_path, name, event):
    db = tmp_path / "s.db"
    with Store(db) as store:
        study = store.create_study("s", "{}", "h", {})
        store.acquire_controller(study.id, "me")
        where = _of_transaction if name in ("__enter__", "__exit__") else None
        with signals.interrupts(), signal_at(name, event, where=where) as fired:
            with pytest.raises(KeyboardInterrupt):
                store.release_controller(study.id, "me")
            assert fired["sent"]
            assert _write_lock_free(db), "a connection kept the write lock while KeyboardInterrupt travelled"
        assert signals.interrupted_by() == signal.SIGTERM
        assert store.get_study("s").controller is None  # the write went through whole before the interrupt
        store.acquire_controller(study.id, "next")
        assert store.get_study("s").controller == "next"


def test_a_second_signal_is_raised_at_once():
    with signals.interrupts(), pytest.raises(KeyboardInterrupt):
        with shield.shielded():
            signals.raise_interrupt(signal.SIGTERM, None)  # noted
            with pytest.raises(KeyboardInterrupt):
                signals.raise_interrupt(signal.SIGTERM, None)  # the user insists: now
