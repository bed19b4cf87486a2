"""Check a Darshan log's fixed header before handing the file to pydarshan, and read its partial-data flags.

darshan-util's C reader prints to stderr and may abort the process (double
free) on a truncated or corrupt log, so iotune refuses what the header
already shows to be wrong: a file that is not a Darshan log, an unknown
format version, or a file shorter than the regions its header maps.

Header layout (darshan-log-format.h): ``char version[8]``, ``int64 magic``
(6567223), ``uint8 compression``, then the partial flag (``uint32`` before
format 3.41, ``uint64`` from 3.41), the name-record map and one map per
module slot (16 slots before 3.41, 64 from 3.41; ``uint64 offset, uint64
length`` each, in bytes), then ``uint32 mod_ver`` per slot.  The compressed job data follows the header up to
the name records.  Bit *i* of the partial flag is set when module *i*
ran out of memory, and module ids depend on the format version (below).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from iotune.workload import WorkloadError

MAGIC = 6567223
# Module ids per log format, from darshan-log-format.h (DARSHAN_MODULE_IDS) of each format:
# 3.00-3.10 (darshan 3.0-3.1): one HDF5 module.  darshan-util shifts these ids up by one from id 4 when it
# reads such a log, to make room for H5D (darshan-logutils.c, "module index shift ... H5D").
MODULES_3_00 = ("NULL", "POSIX", "MPI-IO", "HDF5", "PNETCDF", "BG/Q", "LUSTRE", "STDIO", "DXT_POSIX", "DXT_MPIIO",
                "MDHIM")
# 3.20-3.21 (darshan 3.2-3.4): HDF5 split into H5F and H5D; APXC, APMPI, then HEATMAP (darshan 3.3+).
MODULES_3_20 = ("NULL", "POSIX", "MPI-IO", "H5F", "H5D", "PNETCDF", "BG/Q", "LUSTRE", "STDIO", "DXT_POSIX",
                "DXT_MPIIO", "MDHIM", "APXC", "APMPI", "HEATMAP")
# 3.41 (darshan 3.4.1+): PNETCDF split into PNETCDF_FILE and PNETCDF_VAR, DFS and DAOS added, 64 slots.
MODULES_3_41 = ("NULL", "POSIX", "MPI-IO", "H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR", "BG/Q", "LUSTRE", "STDIO",
                "DXT_POSIX", "DXT_MPIIO", "MDHIM", "APXC", "APMPI", "HEATMAP", "DFS", "DAOS")


def module_names(version: str) -> tuple[str, ...]:
    """Module names by id for a log format version such as ``"3.21"`` (index = module id)."""
    number = float(version)
    if number < 3.2:
        return MODULES_3_00
    return MODULES_3_20 if number < 3.41 else MODULES_3_41


@dataclass(frozen=True)
class DarshanHeader:
    """What the header says: format version (e.g. ``"3.41"``), modules with partial data, bytes it maps, the
    compression type (darshan_comp_type), the compressed regions as (name, offset, length) in bytes, and the
    module slots beyond the format's modules that the header fills (damage: Darshan leaves them zero)."""

    version: str
    partial_modules: tuple[str, ...]
    mapped_bytes: int
    compression: int = 0
    regions: tuple[tuple[str, int, int], ...] = ()
    undefined_slots: tuple[int, ...] = ()


def read_header(path: str | Path) -> DarshanHeader:
    """The header of the Darshan log at ``path``; WorkloadError when the file cannot be a complete Darshan 3 log."""
    return read_log(path)[0]


def read_log(path: str | Path) -> tuple[DarshanHeader, bytes]:
    """The header of the Darshan log at ``path`` and the whole file's bytes; WorkloadError as :func:`read_header`."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise WorkloadError(f"{path}: cannot read ({exc.strerror})") from None
    return parse_header(data, str(path)), data


def parse_header(data: bytes, source: str = "<log>") -> DarshanHeader:
    """The header of a Darshan log given as bytes (the whole file, so that region maps can be checked)."""
    if len(data) < 16:
        raise WorkloadError(f"{source}: not a Darshan log ({len(data)} bytes, too short for a header)")
    version = data[:8].split(b"\0", 1)[0].decode("ascii", "replace")
    little, big = struct.unpack("<q", data[8:16])[0], struct.unpack(">q", data[8:16])[0]
    if MAGIC not in (little, big):
        raise WorkloadError(f"{source}: not a Darshan log (no Darshan magic number in the header)")
    order = "<" if little == MAGIC else ">"
    if not version.startswith("3.") or not version[2:].isdigit():
        raise WorkloadError(f"{source}: Darshan log format {version!r} is not supported (Darshan 3.x logs are)")
    wide_flag = float(version) >= 3.41
    flag_format, maps_at, slots = ("Q", 32, 64) if wide_flag else ("I", 24, 16)
    end = maps_at + 16 * (1 + slots)
    header_bytes = end + 4 * slots
    if len(data) < header_bytes:
        raise WorkloadError(f"{source}: truncated Darshan log ({len(data)} bytes, shorter than its header)")
    partial = struct.unpack(order + flag_format, data[24:32] if wide_flag else data[20:24])[0]
    maps = struct.unpack(f"{order}{2 * (1 + slots)}Q", data[maps_at:end])
    mapped = max(offset + length for offset, length in zip(maps[::2], maps[1::2], strict=True))
    if mapped > len(data):
        raise WorkloadError(f"{source}: truncated or corrupt Darshan log (header maps {mapped} bytes, "
                            f"file has {len(data)})")
    names = module_names(version)
    partial_modules = tuple(names[bit] if bit < len(names) else f"module {bit}"
                            for bit in range(8 * struct.calcsize(flag_format)) if partial & (1 << bit))
    versions = struct.unpack(f"{order}{slots}I", data[end:header_bytes])
    # a module id the format does not define has neither data nor a version in a log Darshan wrote
    undefined = [slot for slot in range(len(names), slots)
                 if versions[slot] or maps[2 + 2 * slot] or maps[3 + 2 * slot]]
    # the job data starts where the header ends (checked on logs of formats 3.21 and 3.41; not assumed before)
    regions = [("job", header_bytes, maps[0] - header_bytes)] if float(version) >= 3.2 else []
    regions.append(("file-name", maps[0], maps[1]))
    module_maps = zip(maps[2::2], maps[3::2], strict=True)
    regions += [(names[slot], offset, length) for slot, (offset, length) in enumerate(module_maps)
                if length and slot < len(names)]
    return DarshanHeader(version, partial_modules, mapped, data[16], tuple(regions), tuple(undefined))
