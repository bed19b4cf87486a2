"""Whether a Darshan log's compressed regions are intact: every zlib or bzip2 stream whole, with its checksum.

darshan-util inflates a region only as far as the records it returns, so
damage near a region's end (its adler-32 checksum), in a region nothing reads,
or in bytes that still inflate to plausible counters is read without a word
(issue 22: 2 of 7 logs with 64 bytes flipped mid-file were profiled silently).
Every region is checked here in full instead: the job data (from the end of
the header to the first mapped region), the name records and each module's
records (darshan-log-format.h's ``name_map`` and ``mod_map``).  A region is
one or more complete compressed streams (one per rank that wrote its part: the
HEATMAP region of the vendored 16-process IOR log holds 16, which pydarshan
reads); the regions follow each other and end where the file ends.
"""

from __future__ import annotations

import bz2
import zlib

ZLIB, BZIP2, NONE = 0, 1, 2  # darshan-log-format.h, enum darshan_comp_type
PIECE = 1 << 20


def _streams_intact(blob: bytes, compression: int) -> bool:
    """Whether ``blob`` is one or more complete streams whose checksums hold (nothing to check when uncompressed)."""
    if compression == NONE:
        return True
    while blob:
        try:
            reader = _whole_stream(blob, compression)
        except (zlib.error, OSError, EOFError, ValueError):
            return False
        if not reader.eof:
            return False
        blob = reader.unused_data
    return True


def _whole_stream(blob: bytes, compression: int):
    """The decompressor after reading the first stream of ``blob``, inflated in pieces of :data:`PIECE` bytes so
    that a crafted region does not expand in memory; its ``eof`` says whether the stream ended."""
    if compression == ZLIB:
        reader = zlib.decompressobj()
        pending = blob
        while not reader.eof:
            out = reader.decompress(pending, PIECE)
            if not out and len(reader.unconsumed_tail) == len(pending):
                break  # no input left and no output: the stream is cut short
            pending = reader.unconsumed_tail
        return reader
    bz2_reader = bz2.BZ2Decompressor()
    bz2_reader.decompress(blob, PIECE)
    while not bz2_reader.eof and not bz2_reader.needs_input:
        bz2_reader.decompress(b"", PIECE)
    return bz2_reader


def damaged_regions(data: bytes, compression: int, regions: list[tuple[str, int, int]]) -> list[str]:
    """Names of the regions (``(name, offset, length)``, in file order of their maps) that are damaged.

    ``"layout"`` is among them when the regions overlap, leave a gap or do not end where the file ends.
    """
    if compression not in (ZLIB, BZIP2, NONE):
        return ["compression type"]
    damaged = []
    ordered = sorted((r for r in regions if r[2] > 0), key=lambda r: r[1])
    for (_, offset, length), (_, following, _) in zip(ordered, ordered[1:], strict=False):
        if offset + length != following:
            damaged.append("layout")
            break
    else:
        if ordered and ordered[-1][1] + ordered[-1][2] != len(data):
            damaged.append("layout")
    for name, offset, length in ordered:
        if not _streams_intact(data[offset:offset + length], compression):
            damaged.append(name)
    return damaged
