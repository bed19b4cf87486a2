"""Check a Darshan log's fixed header before handing the file to pydarshan.

darshan-util's C reader prints to stderr and may abort the process (double
free) on a truncated or corrupt log, so iotune refuses what the header
already shows to be wrong: a file that is not a Darshan log, an unknown
format version, or a file shorter than the regions its header maps.

Header layout (darshan-log-format.h): ``char version[8]``, ``int64 magic``
(6567223), ``uint8 compression``, then the partial flag (``uint32`` before
format 3.41, ``uint64`` from 3.41), the name-record map and one map per
module slot (16 slots before 3.41, 64 from 3.41; ``uint64 offset, uint64
length`` each, in bytes).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from iotune.workload import WorkloadError

MAGIC = 6567223
# Module ids of darshan-log-format.h, for the bits of the header's partial flag.
MODULE_IDS = {1: "POSIX", 2: "MPI-IO", 3: "H5F", 4: "H5D", 5: "PNETCDF_FILE", 6: "PNETCDF_VAR", 7: "BG/Q",
              8: "LUSTRE", 9: "STDIO", 10: "DXT_POSIX", 11: "DXT_MPIIO", 12: "MDHIM", 13: "APXC", 14: "APMPI",
              15: "HEATMAP", 16: "MDHIM"}


@dataclass(frozen=True)
class DarshanHeader:
    """What the header says: format version (e.g. ``"3.41"``), modules with partial data, bytes it maps."""

    version: str
    partial_modules: tuple[str, ...]
    mapped_bytes: int


def read_header(path: str | Path) -> DarshanHeader:
    """The header of the Darshan log at ``path``; WorkloadError when the file cannot be a complete Darshan 3 log."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise WorkloadError(f"{path}: cannot read ({exc.strerror})") from None
    if len(data) < 16:
        raise WorkloadError(f"{path}: not a Darshan log ({len(data)} bytes, too short for a header)")
    version = data[:8].split(b"\0", 1)[0].decode("ascii", "replace")
    little, big = struct.unpack("<q", data[8:16])[0], struct.unpack(">q", data[8:16])[0]
    if MAGIC not in (little, big):
        raise WorkloadError(f"{path}: not a Darshan log (no Darshan magic number in the header)")
    order = "<" if little == MAGIC else ">"
    if not version.startswith("3.") or not version[2:].isdigit():
        raise WorkloadError(f"{path}: Darshan log format {version!r} is not supported (Darshan 3.x logs are)")
    wide_flag = version >= "3.41"
    flag_format, maps_at, slots = ("Q", 32, 64) if wide_flag else ("I", 24, 16)
    end = maps_at + 16 * (1 + slots)
    if len(data) < end:
        raise WorkloadError(f"{path}: truncated Darshan log ({len(data)} bytes, shorter than its header)")
    partial = struct.unpack(order + flag_format, data[24:32] if wide_flag else data[20:24])[0]
    maps = struct.unpack(f"{order}{2 * (1 + slots)}Q", data[maps_at:end])
    mapped = max(offset + length for offset, length in zip(maps[::2], maps[1::2]))
    if mapped > len(data):
        raise WorkloadError(f"{path}: truncated or corrupt Darshan log (header maps {mapped} bytes, "
                           f"file has {len(data)})")
    partial_modules = tuple(name for bit, name in MODULE_IDS.items() if partial & (1 << bit))
    return DarshanHeader(version, partial_modules, mapped)
