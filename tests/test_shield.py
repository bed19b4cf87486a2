"""iotune.shield: a signal inside a shielded section is raised when the outermost section ends, not before."""

import threading

import pytest

from iotune import shield


def test_an_interrupt_waits_for_the_outermost_section():
    done = []
    with pytest.raises(KeyboardInterrupt):
        with shield.shielded():
            with shield.shielded():
                shield.interrupt()
                done.append("inner")
            done.append("outer")
    assert done == ["inner", "outer"]
    with shield.shielded():  # nothing pending any more
        pass


def test_outside_a_section_or_the_main_thread_it_is_raised_at_once():
    with pytest.raises(KeyboardInterrupt):
        shield.interrupt()
    raised = []

    def other():
        with shield.shielded():
            try:
                shield.interrupt()
            except KeyboardInterrupt:
                raised.append(True)

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert raised == [True]
