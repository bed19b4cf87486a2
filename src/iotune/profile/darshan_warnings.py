"""Warnings a Darshan profile owes its user: incomplete data, and workloads where tuning MPI-IO is pointless.

Tuning MPI-IO hints (and running an MPI-IO benchmark) is pointless when the
application's I/O never reaches MPI-IO's data path or is too small or too
scattered for it to matter: I/O through STDIO only, output to the console only,
Python imports only (reading ``.py``/``.pyc``/``.so`` files), a tiny volume
(under :data:`TINY_BYTES`), or many files (more than :data:`MANY_FILES`), where
opening and creating files costs more than moving their data.
"""

from __future__ import annotations

import re

from iotune.profile.darshan_layers import approx_size

TINY_BYTES = 1 << 20
MANY_FILES = 100
CONSOLE = ("<STDIN>", "<STDOUT>", "<STDERR>")
# Modules whose counters a profile reads, in the names of every format (3.00-3.41).
USED_MODULES = {"POSIX", "MPI-IO", "STDIO", "HDF5", "H5F", "H5D", "PNETCDF", "PNETCDF_FILE", "PNETCDF_VAR", "DFS",
                "DAOS"}
_IMPORT = re.compile(r"(\.(py|pyc|pyo|pth|so)(\.[0-9.]+)?$)|/(site|dist)-packages/|/__pycache__/|/lib/python[0-9.]+/")


def partial_data(modules: list[str]) -> list[str]:
    """One warning per module the log's header flags as partial, worded for what it means to this profile."""
    out = []
    for name in modules:
        if name.startswith("DXT_"):
            out.append(f"partial data: Darshan's {name} trace ran out of memory and is truncated; the counters "
                       "this profile reads are complete")
        elif name in USED_MODULES:
            out.append(f"partial data: Darshan's {name} module ran out of record memory; files beyond its limit are "
                       f"missing, so its counts are lower bounds")
        else:
            out.append(f"partial data: Darshan's {name} module ran out of memory; this profile does not use it")
    return out


def damaged(regions: list[str]) -> list[str]:
    """Warnings for damage to parts of the log this profile does not read: a region (LUSTRE, HEATMAP, DXT...) that
    fails its checksum, or ``"header"``: module slots beyond the format's filled in."""
    out = []
    if "header" in regions:
        out.append("damaged log: its header fills module slots its format does not define (the file changed after "
                   "Darshan wrote it); the parts this profile reads are intact")
    regions = [r for r in regions if r != "header"]
    if regions:
        out.append(f"damaged log: its {', '.join(regions)} data fail{'s' if len(regions) == 1 else ''} the "
                   "compression checksum (the file changed after Darshan wrote it); this profile does not read them")
    return out


def is_console(name: str) -> bool:
    return name in CONSOLE


def is_import(name: str) -> bool:
    """A file a Python import reads: a module, its bytecode, an extension or a path under site-packages."""
    return bool(_IMPORT.search(name))


def pointless_tuning(*, interface: str, share: float, total_bytes: int, files: dict[str, tuple[int, int]]) -> list[str]:
    """Warnings for workloads whose MPI-IO tuning is pointless.

    ``interface`` is the chosen layer and ``share`` its fraction of all
    bytes; ``total_bytes`` counts every layer once; ``files`` maps each file
    name (or record id, when unnamed) with bytes in any layer to its (bytes
    read, bytes written).
    """
    out = []
    named = {name: rw for name, rw in files.items() if sum(rw)}
    console = [name for name in named if is_console(name)]
    on_disk = {name: rw for name, rw in named.items() if not is_console(name)}
    if named and not on_disk:
        out.append(f"console only: the only I/O is the terminal ({', '.join(sorted(console))}); there is no file "
                   "I/O, so tuning MPI-IO hints is pointless")
    elif on_disk and all(is_import(name) and not written for name, (_, written) in on_disk.items()):
        out.append(f"import only: the only file I/O is reading {len(on_disk)} Python module or shared-library "
                   "file(s); tuning MPI-IO hints is pointless")
    elif interface == "STDIO":
        scope = "all" if share >= 1 else f"{100 * share:.1f}% of"
        out.append(f"STDIO: {scope} the bytes go through C stdio streams (fread/fwrite), which MPI-IO hints do "
                   "not reach; tuning them is pointless for this workload")
    if total_bytes < TINY_BYTES:
        out.append(f"tiny: {approx_size(total_bytes)} moved in all (under {approx_size(TINY_BYTES)}); start-up "
                   "and noise dominate, so tuning MPI-IO hints is pointless")
    if len(on_disk) > MANY_FILES:
        out.append(f"many files: {len(on_disk)} files moved data; opening and creating them (metadata) costs "
                   "more than MPI-IO hints can save, so tuning them is pointless (fewer, larger files would help)")
    return out
