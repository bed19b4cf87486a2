"""Where a striped file's bytes land: its objects (the layout) and the servers holding them (the placement).

A file of F bytes with stripe count c, stripe unit u and object size o is cut into
stripe units; unit b goes to object ``(b // c // (o // u)) * c + b % c`` (CephFS's
``file_to_extents``: objects come in sets of c, each set filled round-robin one unit
at a time until its objects hold o bytes).  Lustre (RAID0) has one object per OST,
unit b in object ``b % c``, and no object size.

Placement of the objects on ``servers`` storage servers:

* ``crush``: each object (with its ``replicas``) on a uniformly random set of
  distinct servers, independently of the others: CRUSH's pseudo-random placement
  of object names seen from outside (it hashes the name to a placement group and
  the group to OSDs, so a new file's objects fall anywhere).
* ``round-robin``: Lustre's OST allocator, the objects of consecutive files on
  consecutive OSTs from a uniformly random start.

The distribution of the servers' loads is exact (every placement with its
probability) when there are at most ``max_exact`` placements, else a seeded Monte
Carlo sample of ``draws`` placements.  Sizes are bytes.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from iotune.analytic import _validate as check
from iotune.analytic.errors import ModelError

PLACEMENTS = ("crush", "round-robin")
FILE_SYSTEMS = ("cephfs", "lustre")
MAX_OBJECTS = 4096
"""Objects per write the placement follows (Monte Carlo memory is draws x objects)."""
MAX_UNITS = 1 << 22
"""Stripe units per file the object split enumerates (4M: 256 GiB in 64 KiB units)."""


@dataclass(frozen=True)
class FileObjects:
    """Bytes and stripe-unit pieces of each object of one file (objects never written are left out), and each
    object's number in the file (CephFS names the object after it)."""

    bytes: np.ndarray
    pieces: np.ndarray
    numbers: np.ndarray


@dataclass(frozen=True)
class ServerLoads:
    """Bytes, pieces and objects per server (``[placement, server]``; a replica counts on each server holding
    it), each placement's probability, and the bytes the client sends per placement (each once: the servers copy
    replicas among themselves)."""

    bytes: np.ndarray
    pieces: np.ndarray
    weights: np.ndarray
    exact: bool
    client_bytes: np.ndarray
    objects: np.ndarray

    @property
    def servers_used(self) -> np.ndarray:
        """Servers holding any data, per placement."""
        return (self.bytes > 0).sum(axis=1)


def object_bytes(size, stripe_count, stripe_unit, object_size, file_system: str = "cephfs") -> FileObjects:
    """The objects of a file of ``size`` bytes under a layout (see the module docstring)."""
    size = int(check.sizes(size, "file size"))
    count = check.count("stripe_count", stripe_count)
    unit = check.count("stripe_unit", stripe_unit)
    if size < 1:
        raise ModelError(f"file size must be at least 1 byte, got {size}")
    if file_system not in FILE_SYSTEMS:
        raise ModelError(f"file_system must be one of {', '.join(FILE_SYSTEMS)}, got {file_system!r}")
    units = -(-size // unit)
    if units > MAX_UNITS:
        raise ModelError(f"{units} stripe units per file is more than the model enumerates ({MAX_UNITS})")
    block = np.arange(units)
    if file_system == "lustre":
        obj = block % count
    else:
        osize = check.count("object_size", object_size)
        if osize % unit:
            raise ModelError(f"object_size ({osize}) must be a multiple of stripe_unit ({unit})")
        obj = (block // count // (osize // unit)) * count + block % count
    length = np.full(units, unit, dtype=float)
    length[-1] = size - unit * (units - 1)
    written = np.bincount(obj, weights=length)
    pieces = np.bincount(obj).astype(float)
    keep = written > 0
    return FileObjects(written[keep], pieces[keep], np.flatnonzero(keep))


def _subsets(servers: int, replicas: int) -> np.ndarray:
    """Indicator rows of every set of ``replicas`` distinct servers."""
    rows = []
    for chosen in itertools.combinations(range(servers), replicas):
        row = np.zeros(servers)
        row[list(chosen)] = 1.0
        rows.append(row)
    return np.array(rows)


def server_loads(files, servers: int, replicas: int = 1, placement: str = "crush", *, max_exact: int = 4096,
                 draws: int = 2048, seed: int = 0) -> ServerLoads:
    """The distribution of per-server bytes and pieces when ``files`` (FileObjects) are written together."""
    servers = check.count("servers", servers)
    replicas = check.count("replicas", replicas)
    if replicas > servers:
        raise ModelError(f"replicas ({replicas}) cannot exceed servers ({servers}): replicas go to distinct servers")
    if placement not in PLACEMENTS:
        raise ModelError(f"placement must be one of {', '.join(PLACEMENTS)}, got {placement!r}")
    sizes = np.concatenate([f.bytes for f in files])
    pieces = np.concatenate([f.pieces for f in files])
    if sizes.size > MAX_OBJECTS:
        raise ModelError(f"{sizes.size} objects is more than the placement model follows ({MAX_OBJECTS})")
    if placement == "round-robin":
        if replicas != 1:
            raise ModelError("round-robin (Lustre) placement has no replicas")
        where = (np.arange(servers)[:, None] + np.arange(sizes.size)[None, :]) % servers  # [start, object]
        return _loads(where[:, :, None], sizes, pieces, servers, np.full(servers, 1.0 / servers), True)
    subsets = _subsets(servers, replicas)
    choices = subsets.shape[0]
    total = math.pow(choices, sizes.size)
    if total <= max_exact:
        index = np.array(list(itertools.product(range(choices), repeat=sizes.size)), dtype=np.int64)
        weights = np.full(index.shape[0], 1.0 / index.shape[0])
        exact = True
    else:
        draws = check.count("draws", draws)
        index = np.random.default_rng(seed).integers(0, choices, size=(draws, sizes.size))
        weights = np.full(draws, 1.0 / draws)
        exact = False
    members = np.array([np.flatnonzero(row) for row in subsets])  # [subset, replica]
    return _loads(members[index], sizes, pieces, servers, weights, exact)


def placed_loads(files, where, servers: int) -> ServerLoads:
    """The loads of one known placement: ``where[i][j]`` the server (or the row of servers, one per replica) of
    object j of ``files[i]`` (FileObjects), e.g. read from the file system (:mod:`iotune.analytic.ceph_objects`)."""
    servers = check.count("servers", servers)
    sizes = np.concatenate([f.bytes for f in files])
    pieces = np.concatenate([f.pieces for f in files])
    rows = [np.asarray(w, dtype=np.int64).reshape(len(f.bytes), -1) for f, w in zip(files, where, strict=True)]
    placed = np.concatenate(rows)
    if placed.size == 0 or placed.min() < 0 or placed.max() >= servers:
        raise ModelError(f"a known placement names servers 0..{servers - 1}, got {sorted(set(placed.ravel()))}")
    return _loads(placed[None, :, :], sizes, pieces, servers, np.ones(1), True)


def _loads(where: np.ndarray, sizes, pieces, servers: int, weights, exact: bool) -> ServerLoads:
    """Sum per placement and server; ``where[placement, object, replica]`` is a server."""
    draws = where.shape[0]
    flat = (np.arange(draws)[:, None, None] * servers + where).ravel()
    shape = (draws, servers)

    def total(values):
        spread = np.broadcast_to(values[None, :, None], where.shape).ravel()
        return np.bincount(flat, weights=spread, minlength=draws * servers).reshape(shape)

    return _merged(total(sizes), total(pieces), total(np.ones(sizes.size)), weights, exact, where.shape[2])


def _merged(loads: np.ndarray, pieces: np.ndarray, objects: np.ndarray, weights: np.ndarray, exact: bool,
            replicas: int) -> ServerLoads:
    """Placements equal up to naming the servers merged, their probabilities summed (the time and the servers
    used depend only on the multiset of per-server loads)."""
    # bytes are whole numbers, so fractions below 1 order servers of equal bytes by their pieces, then objects
    tie = 0.5 * (pieces + objects / (objects.max() + 1.0)) / (pieces.max() + 1.0)
    order = np.argsort(loads + tie, axis=1)
    rows = np.concatenate([np.take_along_axis(a, order, 1) for a in (loads, pieces, objects)], axis=1)
    unique, inverse = np.unique(rows, axis=0, return_inverse=True)
    servers = loads.shape[1]
    merged = np.bincount(inverse.ravel(), weights=weights, minlength=unique.shape[0])
    return ServerLoads(unique[:, :servers], unique[:, servers:2 * servers], merged, exact,
                       np.full(merged.size, loads[0].sum() / max(replicas, 1)), unique[:, 2 * servers:])
