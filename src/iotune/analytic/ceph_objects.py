"""Where CephFS put a file's objects: object names, and CRUSH's first step, object name -> placement group.

CephFS names object ``n`` of the file with inode number ``ino`` ``"{ino:x}.{n:08x}"``
(``file_object_t``); RADOS hashes the name with ``ceph_str_hash_rjenkins`` (Bob
Jenkins' lookup2, ``src/common/ceph_hash.cc``) and takes ``ceph_stable_mod`` of it
by the pool's ``pg_num`` (``pg_pool_t::raw_pg_to_pg``): the placement group.  Which
OSDs serve a placement group is the OSD map's business (``ceph pg map``,
``osdmaptool --test-map-pgs-dump``): given that table, a file's inode number says
exactly which servers hold its objects, as ``ceph osd map POOL NAME`` does.
"""

from __future__ import annotations

import numpy as np

from iotune.analytic.errors import ModelError

_MASK = 0xFFFFFFFF


def object_name(inode: int, number: int) -> str:
    """The RADOS name of object ``number`` of the CephFS file with inode number ``inode``."""
    if inode < 0 or number < 0:
        raise ModelError(f"inode and object number must be >= 0, got {inode}, {number}")
    return f"{inode:x}.{number:08x}"


def _mix(a: int, b: int, c: int) -> tuple[int, int, int]:
    a = (a - b - c) & _MASK
    a ^= c >> 13
    b = (b - c - a) & _MASK
    b ^= (a << 8) & _MASK
    c = (c - a - b) & _MASK
    c ^= b >> 13
    a = (a - b - c) & _MASK
    a ^= c >> 12
    b = (b - c - a) & _MASK
    b ^= (a << 16) & _MASK
    c = (c - a - b) & _MASK
    c ^= b >> 5
    a = (a - b - c) & _MASK
    a ^= c >> 3
    b = (b - c - a) & _MASK
    b ^= (a << 10) & _MASK
    c = (c - a - b) & _MASK
    c ^= b >> 15
    return a, b, c


def _word(data: bytes) -> int:
    return int.from_bytes(data.ljust(4, b"\0"), "little")


def rjenkins(name: bytes) -> int:
    """``ceph_str_hash_rjenkins`` of ``name`` (32 bits)."""
    a = b = 0x9E3779B9
    c = 0
    rest = name
    while len(rest) >= 12:
        a, b, c = _mix((a + _word(rest[0:4])) & _MASK, (b + _word(rest[4:8])) & _MASK, (c + _word(rest[8:12])) & _MASK)
        rest = rest[12:]
    # the tail: c's first byte is the length, so the last (up to 11) bytes fill c from its second byte
    c = (c + len(name) + (_word(rest[8:11]) << 8)) & _MASK
    b = (b + _word(rest[4:8])) & _MASK
    a = (a + _word(rest[0:4])) & _MASK
    return _mix(a, b, c)[2]


def placement_group(name: str, pg_num: int) -> int:
    """The placement group (its number within the pool) of object ``name`` in a pool of ``pg_num`` groups."""
    if pg_num < 1:
        raise ModelError(f"pg_num must be >= 1, got {pg_num}")
    mask = (1 << (pg_num - 1).bit_length()) - 1
    value = rjenkins(name.encode())
    return value & mask if (value & mask) < pg_num else value & (mask >> 1)


def file_servers(inode: int, numbers, pg_servers) -> np.ndarray:
    """The server (OSD) of each object ``numbers`` of the file with inode number ``inode``, from ``pg_servers``:
    the OSD serving each placement group of the data pool, indexed by group (its length is the pool's pg_num)."""
    table = np.asarray(pg_servers, dtype=np.int64)
    if table.ndim != 1 or table.size < 1:
        raise ModelError("pg_servers must list one OSD per placement group")
    return np.array([table[placement_group(object_name(inode, int(n)), table.size)] for n in numbers],
                    dtype=np.int64)
