"""Read a large JSON export a trial at a time, so an import holds one batch of trials, not the whole file.

``json.loads`` of a 242 MiB export held about 1 GiB.  This reader walks the
export's outer structure (the document, its ``studies`` list, each study and
its ``trials`` list) itself and decodes everything inside with the standard
library's decoder, one value at a time, from a buffer refilled as it goes.
It needs the order iotune writes: ``format``, ``version``, ``source`` and
``platforms`` before ``studies``, and each study's ``trials`` after its other
fields; a file in another order is refused with a line saying so.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from iotune.errors import StoreError

CHUNK = 1 << 20
"""Bytes read at a time."""

MAX_VALUE = 64 << 20
"""Largest single value (a trial, a study's space, the platform list) decoded, in characters."""

HEAD_KEYS = ("format", "version", "exported_at", "source", "platforms")
"""The document's fields that come before its studies."""


class JsonStream:
    """A JSON text read from ``handle`` (binary) a value at a time; ``read`` counts the bytes taken from it."""

    def __init__(self, handle: BinaryIO, path: Path, limit: int):
        self.path, self.limit, self.read = path, limit, 0
        self._handle = handle
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._json = json.JSONDecoder()
        self._buf, self._pos, self._eof = "", 0, False

    def fail(self, message: str) -> StoreError:
        return StoreError(f"{self.path} is not valid JSON (truncated or corrupt?): {message}")

    def _fill(self, size: int = CHUNK) -> None:
        chunk = self._handle.read(size)
        self.read += len(chunk)
        if self.read > self.limit:
            raise StoreError(f"{self.path} is more than the {self.limit} bytes an import reads")
        try:
            text = self._decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as exc:
            raise self.fail(str(exc)) from None
        self._eof = not chunk
        self._buf = self._buf[self._pos:] + text
        self._pos = 0

    def peek(self) -> str:
        """The next character that is not white space ('' at the end of the file)."""
        while True:
            buf, pos = self._buf, self._pos
            while pos < len(buf) and buf[pos] in " \t\r\n":
                pos += 1
            self._pos = pos
            if pos < len(buf):
                return buf[pos]
            if self._eof:
                return ""
            self._fill()

    def expect(self, chars: str) -> str:
        found = self.peek()
        if not found or found not in chars:
            raise self.fail(f"expected {' or '.join(repr(c) for c in chars)} at byte ~{self.read}, "
                            f"found {found or 'the end of the file'!r}")
        self._pos += 1
        return found

    def value(self):
        """The next JSON value, decoded whole."""
        self.peek()
        while True:
            try:
                value, end = self._json.raw_decode(self._buf, self._pos)
                if end < len(self._buf) or self._eof:  # a number at the buffer's end may go on in the next chunk
                    self._pos = end
                    return value
            except json.JSONDecodeError as exc:
                if self._eof:
                    raise self.fail(str(exc)) from None
            except ValueError as exc:
                raise self.fail(str(exc)) from None
            except RecursionError:
                raise StoreError(f"{self.path} nests JSON too deeply to be an iotune export") from None
            pending = len(self._buf) - self._pos
            if pending > MAX_VALUE:
                raise StoreError(f"{self.path} holds a value of more than {MAX_VALUE >> 20} MiB (at byte "
                                 f"~{self.read}): not an iotune export")
            self._fill(max(CHUNK, pending))

    def key(self, first: bool) -> str | None:
        """The next key of an object whose '{' was read (None at its '}'), with its ':' read."""
        if self.peek() == "}":
            self._pos += 1
            return None
        if not first:
            self.expect(",")
        if self.peek() != '"':
            raise self.fail(f"expected a key at byte ~{self.read}")
        name = self.value()
        self.expect(":")
        return name

    def items(self) -> Iterator:
        """The values of a list whose '[' was read, one at a time, up to and with its ']'."""
        first = True
        while True:
            if self.peek() == "]":
                self._pos += 1
                return
            if not first:
                self.expect(",")
            first = False
            yield self.value()

    def end(self) -> None:
        if self.peek():
            raise self.fail(f"extra data after the document at byte ~{self.read}")


def read_export(stream: JsonStream) -> dict:
    """The export's head fields, read; its ``studies`` a lazy iterator of study dicts whose ``trials`` are lazy
    too.  Consume each study's trials before asking for the next study."""
    stream.expect("{")
    head: dict = {}
    first = True
    while (key := stream.key(first)) is not None:
        first = False
        if key == "studies":
            head["studies"] = _studies(stream) if stream.peek() == "[" else _rest(stream, stream.value())
            return head
        head[key] = stream.value()
    stream.end()
    return head


def _rest(stream: JsonStream, value):
    """``value`` (a "studies" that is not a list), after checking the rest of the document."""
    _finish_document(stream)
    return value


def _finish_document(stream: JsonStream) -> None:
    first = False
    while (key := stream.key(first)) is not None:
        if key in HEAD_KEYS or key == "studies":
            raise StoreError(f"{stream.path}: \"{key}\" after the studies: a large export must give format, "
                             "version, source and platforms first, as iotune writes it")
        stream.value()
    stream.end()


def _studies(stream: JsonStream) -> Iterator:
    stream.expect("[")
    first = True
    while True:
        if stream.peek() == "]":
            stream.expect("]")
            break
        if not first:
            stream.expect(",")
        first = False
        if stream.peek() != "{":
            yield stream.value()
            continue
        stream.expect("{")
        study: dict = {}
        trials = None
        first_key = True
        while (key := stream.key(first_key)) is not None:
            first_key = False
            if trials is not None:
                raise StoreError(f"{stream.path}: study {study.get('name')!r} has \"{key}\" after its trials: a "
                                 "large export must list each study's trials last, as iotune writes it")
            if key == "trials" and stream.peek() == "[":
                if "name" not in study:
                    raise StoreError(f"{stream.path}: a study lists its trials before its name: a large export "
                                     "must list each study's trials last, as iotune writes it")
                stream.expect("[")
                trials = study["trials"] = stream.items()
                yield study
                for _ in trials:  # what the reader did not take
                    pass
            else:
                study[key] = stream.value()
        if trials is None:
            yield study
    _finish_document(stream)
