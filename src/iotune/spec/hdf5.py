"""The HDF5 layer's settings of the built-in benchmark (``api: HDF5``): names, values, checks.

A setting is a parameter of layer ``hdf5`` (role system) named as below, or a key of the ``benchmark:``
section's ``hdf5:`` map.  Values are kept as strings, as hints are.  A setting left out keeps HDF5's
default, shown in :data:`HDF5_DEFAULTS` (HDF5 1.10 reference manual: H5Pset_alignment, H5Pset_meta_block_size,
H5Pset_mdc_config, H5Pset_file_space_strategy, H5Pset_all_coll_metadata_ops).

- ``datasets``: how many 1-D datasets the data is spread over (each rank's block is split among them);
- ``chunked`` / ``chunk_size``: contiguous datasets, or chunked ones with chunks of that many bytes;
- ``alignment_threshold`` / ``alignment``: objects of at least the threshold start at multiples of alignment;
- ``meta_block_size``: bytes reserved at once for metadata;
- ``mdc_initial_size``: the metadata cache's initial size in bytes;
- ``coll_metadata``: metadata reads and writes done collectively (all ranks) instead of by each one;
- ``fs_strategy`` / ``fs_page_size``: the file-space strategy (``fsm_aggr`` HDF5's default, ``page``,
  ``aggr``, ``none``) and, for ``page``, the page size.

The transfer mode is the benchmark's ``collective`` field, as for MPI-IO.  A shared file is opened
through the MPI-IO driver (``mpio``: ROMIO hints apply), a file per process through the POSIX driver
(``sec2``).  Every setting is read back from the file written (:mod:`iotune.bench.hdf5`) and recorded
as it took effect under ``hdf5.<name>`` beside the hints.
"""

from __future__ import annotations

from collections.abc import Mapping

from iotune.errors import SpaceError, UnitError
from iotune.records import BenchmarkSpec
from iotune.units import format_size, parse_size

MIB = 1 << 20
SIZES = ("chunk_size", "alignment_threshold", "alignment", "meta_block_size", "mdc_initial_size", "fs_page_size")
FS_STRATEGIES = ("fsm_aggr", "page", "aggr", "none")
HDF5_FIELDS = ("datasets", "chunked", *SIZES, "coll_metadata", "fs_strategy")
HDF5_DEFAULTS = {"datasets": "1", "chunked": "false", "alignment_threshold": "1", "alignment": "1",
                 "meta_block_size": "2048", "mdc_initial_size": str(2 * MIB), "coll_metadata": "false",
                 "fs_strategy": "fsm_aggr", "fs_page_size": "4096"}
MAX_DATASETS = 1 << 16
MDC_MAX_SIZE = 32 * MIB
"""HDF5's default largest metadata cache; a larger initial size raises the largest to match."""
IN_EFFECT_PREFIX = "hdf5."
"""Key prefix of an HDF5 setting among the settings read back (``hints_in_effect``)."""
_TRUE, _FALSE = ("true", "yes", "on", "1", "enable"), ("false", "no", "off", "0", "disable")


class Hdf5SettingError(SpaceError):
    """An HDF5 setting's name or value is not one the benchmark can apply."""


def setting_key(name: str) -> str:
    """The key an HDF5 setting's read-back value is recorded under beside the MPI-IO hints."""
    return IN_EFFECT_PREFIX + name


def _flag(name: str, value: str) -> str:
    text = value.strip().lower()
    if text in _TRUE:
        return "true"
    if text in _FALSE:
        return "false"
    raise Hdf5SettingError(f"HDF5 setting {name}: {value!r} is not a boolean (true or false)")


def _size(name: str, value: str) -> str:
    try:
        size = parse_size(value)
    except UnitError as error:
        raise Hdf5SettingError(f"HDF5 setting {name}: {error}") from None
    if not 1 <= size <= 1 << 40:
        raise Hdf5SettingError(f"HDF5 setting {name}: {value!r} must be between 1 byte and 1 TiB")
    return str(size)


def check_hdf5(settings: Mapping[str, object], whole: bool = True) -> dict[str, str]:
    """``settings`` with every value normalised to a string (sizes in bytes, booleans true/false);
    :class:`Hdf5SettingError` names the first unknown key or bad value, and (``whole``: all of a run's settings)
    a setting given without the one it depends on."""
    out: dict[str, str] = {}
    for name, raw in settings.items():
        value = ("true" if raw else "false") if isinstance(raw, bool) else str(raw)
        if name not in HDF5_FIELDS and name != "fs_page_size":
            raise Hdf5SettingError(f"unknown HDF5 setting {name!r}; known: {', '.join(HDF5_FIELDS)}, fs_page_size")
        if name == "datasets":
            if not value.isdigit() or not 1 <= int(value) <= MAX_DATASETS:
                raise Hdf5SettingError(f"HDF5 setting datasets: {value!r} must be an integer from 1 to {MAX_DATASETS}")
            out[name] = str(int(value))
        elif name in ("chunked", "coll_metadata"):
            out[name] = _flag(name, value)
        elif name == "fs_strategy":
            if value not in FS_STRATEGIES:
                raise Hdf5SettingError(f"HDF5 setting fs_strategy: {value!r} is not one of {', '.join(FS_STRATEGIES)}")
            out[name] = value
        else:
            out[name] = _size(name, value)
    if not whole:
        return out
    if out.get("fs_page_size") and out.get("fs_strategy", "fsm_aggr") != "page":
        raise Hdf5SettingError("HDF5 setting fs_page_size applies only with fs_strategy: page")
    if out.get("chunk_size") and out.get("chunked") != "true":
        raise Hdf5SettingError("HDF5 setting chunk_size applies only with chunked: true")
    return out


def settings_problem(spec: BenchmarkSpec) -> str | None:
    """Why ``spec``'s HDF5 settings cannot shape its run, in one line, or None: each dataset gets an equal part
    of every block, in whole transfers; a chunk holds whole transfers or a transfer whole chunks, and fits in
    a dataset (HDF5 refuses a chunk larger than a fixed-size dataset)."""
    settings, block_size, transfer_size = spec.hdf5, spec.block_size, spec.transfer_size
    datasets = int(settings.get("datasets", "1"))
    part = block_size // datasets
    if block_size % datasets or part % transfer_size:
        return (f"HDF5 datasets={datasets}: each dataset takes block_size/datasets bytes of every block "
                f"({format_size(block_size)}/{datasets}), which must be a whole number of transfers "
                f"({format_size(transfer_size)})")
    chunk = int(settings.get("chunk_size", "0"))
    if chunk and chunk % transfer_size and transfer_size % chunk:
        return (f"HDF5 chunk_size {format_size(chunk)} and transfer_size {format_size(transfer_size)}: one must "
                "be a multiple of the other")
    length = part * spec.segment_count * (1 if spec.file_per_process else spec.processes)
    if chunk > length:
        return (f"HDF5 chunk_size {format_size(chunk)} is larger than a dataset ({format_size(length)}: "
                f"{datasets} datasets share the data)")
    return None


def as_asked(settings: Mapping[str, str], transfer_size: int) -> dict[str, str]:
    """Every setting's value as a run asks for it: the given ones, HDF5's defaults for the others (a chunk
    is one transfer when chunked without a size)."""
    asked = {**HDF5_DEFAULTS, **settings}
    if asked["fs_strategy"] != "page":
        asked.pop("fs_page_size")
    if asked["chunked"] == "true":
        asked.setdefault("chunk_size", str(transfer_size))
    return asked
