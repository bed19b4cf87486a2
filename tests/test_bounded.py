"""iotune.bounded: a file argument read within a byte limit by reading, whatever it is."""

import os
import time

import pytest

from iotune.bounded import InputError, read_bounded


def test_a_regular_file_is_read_up_to_its_limit(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 100)
    assert read_bounded(path, 100, "file") == b"x" * 100
    with pytest.raises(InputError, match="more than 99 bytes"):
        read_bounded(path, 99, "file")


def test_a_pipe_whose_writer_is_slow_to_speak_is_read_whole():
    read, write = os.pipe()
    if os.fork() == 0:
        os.close(read)
        time.sleep(0.3)
        os.write(write, b"late")
        os._exit(0)
    os.close(write)
    try:
        assert read_bounded(f"/proc/self/fd/{read}", 100, "file") == b"late"
    finally:
        os.close(read)
        os.wait()


def test_a_pipe_that_stays_silent_is_given_up():
    read, write = os.pipe()
    try:
        with pytest.raises(InputError, match="sent nothing for 0.2 s"):
            read_bounded(f"/proc/self/fd/{read}", 100, "file", idle_s=0.2)
    finally:
        os.close(read)
        os.close(write)
