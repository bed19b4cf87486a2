"""Reading a file argument within a byte limit, by reading: a device, a FIFO or ``<(cmd)`` has no size to check.

``stat().st_size`` is 0 for ``/dev/zero``, a FIFO and a process substitution, so a
limit checked on it let ``/dev/zero`` fill memory, and a FIFO nobody writes
blocked for ever.  :func:`read_bounded` refuses devices and directories, reads a
regular file up to one byte past the limit, and reads a pipe without blocking on
its opening: a FIFO that no writer opens within 2 s is refused, and a pipe may
stay silent for at most 30 s.
"""

from __future__ import annotations

import os
import select
import stat
import time
from pathlib import Path

from iotune.errors import IotuneError

IDLE_S = 30.0
WRITER_S = 2.0
CHUNK = 1 << 20


class InputError(IotuneError, ValueError):
    """A file argument that cannot be read as one: a device, a directory, too large, silent, unreadable."""


def read_bounded(path: str | os.PathLike, limit: int, what: str, idle_s: float = IDLE_S) -> bytes:
    """The bytes of ``path`` (a regular file, a FIFO or a pipe), at most ``limit`` of them; InputError if not.

    ``what`` names the file in messages ("replay table", "spec"); ``idle_s`` is how long a pipe may stay
    silent before it is given up.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO with no writer: no wait
    except OSError as exc:
        raise InputError(f"cannot read the {what} {path}: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(f"the {what} {path} is a directory, not a file")
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            raise InputError(f"the {what} {path} is a device, not a file")
        if stat.S_ISREG(mode):
            os.set_blocking(fd, True)
        data = _read(fd, limit, Path(path), what, None if stat.S_ISREG(mode) else idle_s)
    except OSError as exc:
        raise InputError(f"cannot read the {what} {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InputError(f"the {what} {path} is more than {limit} bytes, the most iotune reads")
    return data


def _read(fd: int, limit: int, path: Path, what: str, idle_s: float | None) -> bytes:
    """Up to ``limit`` + 1 bytes; ``idle_s`` None: a regular file, else a pipe that may not stay silent longer."""
    chunks, total, writer = [], 0, idle_s is None
    deadline = time.monotonic() + WRITER_S
    while total <= limit:
        try:
            chunk = os.read(fd, min(CHUNK, limit + 1 - total))
        except BlockingIOError:  # a writer is there, with nothing to say yet
            writer = True
            if not select.select([fd], [], [], idle_s)[0]:
                raise InputError(f"the {what} {path} sent nothing for {idle_s:g} s") from None
            continue
        if not chunk:
            if writer or time.monotonic() > deadline:
                break
            time.sleep(0.05)  # a FIFO whose writer has not opened it yet reads as at its end
            continue
        writer = True
        chunks.append(chunk)
        total += len(chunk)
    if not writer:
        raise InputError(f"nothing writes to the {what} {path} (a FIFO with no writer for {WRITER_S:g} s)")
    return b"".join(chunks)
