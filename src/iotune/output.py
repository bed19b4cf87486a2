"""Writing an output path (an export, a report, a hints file) without ever destroying what is there.

A regular file (new or existing) is written beside itself and renamed over
the path once complete, so a crash or a full disk never leaves half a file
there.  Anything else is written through and never replaced: a device
(``/dev/null``, ``/dev/full``), a FIFO, ``-`` (standard output); a symbolic
link is followed, and the file it points to is what is written (atomically if
it is a regular file).  Renaming a temporary file over ``/dev/full`` turned the
device into a regular file (issue 32).
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from iotune.errors import IotuneError

STDOUT = "-"


class OutputError(IotuneError, OSError):
    """An output path that cannot be written: its directory is missing or a file, no space, no permission."""


@contextlib.contextmanager
def output_stream(path: str | os.PathLike, what: str) -> Iterator[BinaryIO]:
    """A binary stream that ends up at ``path`` (see the module); OutputError in one line if it cannot.

    ``what`` names the output in messages ("export", "report").  An error inside the block leaves a regular
    file at ``path`` as it was.
    """
    shown = os.fspath(path)
    if shown == STDOUT:
        binary = getattr(sys.stdout, "buffer", None)
        if binary is None:  # a text stream in place of stdout (a test's, an embedding program's)
            held = io.BytesIO()
            yield held
            sys.stdout.write(held.getvalue().decode("utf-8", "replace"))
            return
        yield binary
        binary.flush()
        return
    target = Path(os.path.realpath(path))  # a symbolic link: what it points to
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise OutputError(f"cannot write the {what} {shown}: {exc.strerror or exc}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise OutputError(f"cannot write the {what} {shown}: it is a directory")
    if mode is not None and not stat.S_ISREG(mode):
        try:
            with open(target, "wb") as stream:  # a device or a FIFO: through, never replaced
                yield stream
        except OSError as exc:
            raise OutputError(f"cannot write the {what} {shown}: {exc.strerror or exc}") from None
        return
    with _replacing(target, shown, what, mode) as stream:
        yield stream


@contextlib.contextmanager
def _replacing(target: Path, shown: str, what: str, mode: int | None) -> Iterator[BinaryIO]:
    """A temporary file beside ``target``, renamed over it when the block ends without an error."""
    try:
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise OutputError(f"cannot write the {what} {shown}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
            os.fchmod(stream.fileno(), stat.S_IMODE(mode) if mode is not None else 0o666 & ~_umask())
        os.replace(temporary, target)
    except OSError as exc:
        raise OutputError(f"cannot write the {what} {shown}: {exc.strerror or exc}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def write_output(path: str | os.PathLike, data: bytes | str, what: str) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` as :func:`output_stream` does."""
    with output_stream(path, what) as stream:
        stream.write(data.encode("utf-8") if isinstance(data, str) else data)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
