"""Which I/O layer of a Darshan log describes the application: the one that carries most of the bytes.

Darshan records the same data once per layer it passes: an MPI-IO write is
also a POSIX write below it, an HDF5 or PnetCDF write is also an MPI-IO write,
and a DFS write is also a DAOS array write.  Layers are therefore compared by
the bytes only they carry:

- MPI-IO: ``MPIIO_BYTES_*`` (named HDF5 or PnetCDF when ``H5D``/``PNETCDF_VAR``
  records carry bytes, whose records then describe the requests);
- POSIX outside MPI-IO: POSIX bytes of files that have no MPI-IO record (Darshan
  gives a file the same record id in every module);
- STDIO: ``STDIO_BYTES_*`` (the C library's buffered streams, not seen by POSIX);
- DFS: ``DFS_BYTES_*``;
- DAOS outside DFS: DAOS bytes beyond the DFS bytes.
"""

from __future__ import annotations

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


def layers(records: dict[str, list[dict]]) -> list[Layer]:
    """Every layer of the log with its own bytes, in order of preference when volumes tie."""
    mpiio = records.get("MPI-IO", [])
    library = max((("HDF5", "H5D"), ("PnetCDF", "PNETCDF_VAR")),
                  key=lambda pair: total(records.get(pair[1], []), PREFIX[pair[1]]))
    mpi_interface, mpi_module = ("MPIIO", "MPI-IO")
    if total(mpiio, "MPIIO") and total(records.get(library[1], []), PREFIX[library[1]]):
        mpi_interface, mpi_module = library
    under_mpiio = {r["id"] for r in mpiio}
    posix_alone = [r for r in records.get("POSIX", []) if r["id"] not in under_mpiio]
    dfs = total(records.get("DFS", []), "DFS")
    found = [
        Layer(mpi_interface, "MPI-IO" if mpi_interface == "MPIIO" else f"{mpi_interface} over MPI-IO", mpi_module,
              records.get(mpi_module, []), total(mpiio, "MPIIO")),
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
