"""Which I/O layer of a Darshan log describes the application: the one that carries most of the bytes.

Darshan records the same data once per layer it passes: an MPI-IO write is
also a POSIX write below it, an HDF5 or PnetCDF write is also an MPI-IO write,
and a DFS write is also a DAOS array write.  Layers are therefore compared by
the bytes only they carry, after leaving out the files of the program's
runtime (:func:`is_runtime`: the Python interpreter's modules, bytecode and
extensions, shared libraries, system directories), which never define the
workload; only when nothing else moved bytes are they profiled (and the
profile warns that tuning is pointless):

- MPI-IO: ``MPIIO_BYTES_*`` (named HDF5 or PnetCDF when ``H5D``/``PNETCDF_VAR``
  records carry bytes, whose records then describe the requests);
- HDF5 over POSIX (HDF5 without its MPI-IO driver, h5py's default): the POSIX
  bytes of the files HDF5 opened (``H5F`` records, and the ``file_rec_id`` of
  ``H5D`` records), described by the ``H5D`` records' requests;
- POSIX outside MPI-IO: POSIX bytes of files that have no MPI-IO record and are
  not HDF5's (Darshan gives a file the same record id in every module);
- STDIO: ``STDIO_BYTES_*`` (the C library's buffered streams, not seen by POSIX);
- DFS: ``DFS_BYTES_*``;
- DAOS outside DFS: DAOS bytes beyond the DFS bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# pydarshan module name -> counter prefix.
PREFIX = {"POSIX": "POSIX", "MPI-IO": "MPIIO", "STDIO": "STDIO", "H5D": "H5D", "PNETCDF_VAR": "PNETCDF_VAR",
          "DFS": "DFS", "DAOS": "DAOS"}


def approx_size(nbytes: int) -> str:
    """A byte count for people, to three significant digits: ``"17.2 GiB"``, ``"2 KiB"``, ``"300 B"``."""
    for unit, factor in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= factor:
            return f"{nbytes / factor:.3g} {unit}"
    return f"{nbytes} B"


def moved(record: dict, prefix: str) -> int:
    """Bytes read plus bytes written by one record."""
    return record.get(f"{prefix}_BYTES_READ", 0) + record.get(f"{prefix}_BYTES_WRITTEN", 0)


def total(records: list[dict], prefix: str) -> int:
    return sum(moved(r, prefix) for r in records)


@dataclass
class Layer:
    """One layer's share of the bytes and the records that describe its requests.

    ``volume`` is in bytes and counts only what no other layer counts;
    ``module`` and ``prefix`` name the records (``records``) that describe it.
    """

    interface: str
    label: str
    module: str
    records: list[dict]
    volume: int

    @property
    def prefix(self) -> str:
        return PREFIX[self.module]


_RUNTIME = re.compile(r"(\.(py|pyc|pyo|pth|so)(\.[0-9.]+)?$)|\.so\.|/(site|dist)-packages/|/__pycache__/"
                      r"|/lib(64)?/python[0-9.]+/|^/(usr/|usr/local/)?lib(32|64)?/|^/usr/share/|^/(proc|sys|dev|etc)/")


def is_runtime(name: str) -> bool:
    """A file of the program's runtime, not its data: a Python module, bytecode or extension, anything under
    site-packages, a shared library, a file under /usr/lib, /lib, /usr/share, /proc, /sys, /dev or /etc."""
    return bool(_RUNTIME.search(name))


def without_runtime(records: dict[str, list[dict]], names: dict[str, str]) -> tuple[dict[str, list[dict]], int, int]:
    """``records`` without the file-level records of runtime files (:func:`is_runtime`), the number of such files
    that moved bytes, and those bytes (a file's largest figure over the modules)."""
    runtime = {int(i) for i, name in names.items() if is_runtime(name)}
    kept: dict[str, list[dict]] = {}
    per_module: dict[tuple[str, int], int] = {}
    for module, rows in records.items():
        if module not in ("POSIX", "STDIO", "MPI-IO"):
            kept[module] = rows
            continue
        kept[module] = [r for r in rows if r["id"] not in runtime]
        for row in rows:
            if row["id"] in runtime:
                per_module[module, row["id"]] = per_module.get((module, row["id"]), 0) + moved(row, PREFIX[module])
    per_file: dict[int, int] = {}
    for (_, file_id), count in per_module.items():
        per_file[file_id] = max(per_file.get(file_id, 0), count)
    return kept, sum(1 for v in per_file.values() if v), sum(per_file.values())


def layers(records: dict[str, list[dict]]) -> list[Layer]:
    """Every layer of the log with its own bytes, in order of preference when volumes tie."""
    mpiio = records.get("MPI-IO", [])
    library = max((("HDF5", "H5D"), ("PnetCDF", "PNETCDF_VAR")),
                  key=lambda pair: total(records.get(pair[1], []), PREFIX[pair[1]]))
    mpi_interface, mpi_module = ("MPIIO", "MPI-IO")
    if total(mpiio, "MPIIO") and total(records.get(library[1], []), PREFIX[library[1]]):
        mpi_interface, mpi_module = library
    under_mpiio = {r["id"] for r in mpiio}
    datasets = records.get("H5D", [])
    hdf5_files = {r["id"] for r in records.get("H5F", [])} | {r["file_rec_id"] for r in datasets if "file_rec_id" in r}
    posix = records.get("POSIX", [])
    under_hdf5 = [r for r in posix if r["id"] in hdf5_files - under_mpiio]
    posix_alone = [r for r in posix if r["id"] not in under_mpiio and r["id"] not in hdf5_files]
    if not total(under_hdf5, "POSIX") or not total(datasets, "H5D"):
        posix_alone, under_hdf5 = posix_alone + under_hdf5, []
    dfs = total(records.get("DFS", []), "DFS")
    found = [
        Layer(mpi_interface, "MPI-IO" if mpi_interface == "MPIIO" else f"{mpi_interface} over MPI-IO", mpi_module,
              records.get(mpi_module, []), total(mpiio, "MPIIO")),
        Layer("HDF5", "HDF5 over POSIX", "H5D", [r for r in datasets if r.get("file_rec_id") not in under_mpiio],
              total(under_hdf5, "POSIX")),
        Layer("POSIX", "POSIX outside MPI-IO", "POSIX", posix_alone, total(posix_alone, "POSIX")),
        Layer("DFS", "DFS", "DFS", records.get("DFS", []), dfs),
        Layer("DAOS", "DAOS outside DFS", "DAOS", records.get("DAOS", []),
              max(0, total(records.get("DAOS", []), "DAOS") - dfs)),
        Layer("STDIO", "STDIO", "STDIO", records.get("STDIO", []), total(records.get("STDIO", []), "STDIO")),
    ]
    return [layer for layer in found if layer.volume > 0]


def choose(found: list[Layer]) -> tuple[Layer, list[str], list[str]]:
    """The layer with most bytes, a note that says why, and a warning when another layer is left out.

    ``found`` must not be empty (see :func:`layers`).
    """
    chosen = max(found, key=lambda layer: layer.volume)  # max keeps the first of equal volumes
    everything = sum(layer.volume for layer in found)
    shares = ", ".join(f"{layer.label} {approx_size(layer.volume)}" for layer in found)
    notes = [f"interface {chosen.interface}: the layer that carries most bytes ({shares}; bytes a lower layer "
             "carries again, such as POSIX under MPI-IO, are counted once)"]
    warnings = [f"mixed I/O: this profile describes {chosen.label} ({100 * chosen.volume / everything:.0f}% of "
                f"the bytes); {layer.label} moves {approx_size(layer.volume)} "
                f"({100 * layer.volume / everything:.0f}%) that it leaves out"
                for layer in found if layer is not chosen and layer.volume * 10 >= everything]
    return chosen, notes, warnings
