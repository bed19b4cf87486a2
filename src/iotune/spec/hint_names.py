"""MPI-IO hint names that some MPI library documents, and warnings for a hint name none does or a size hint
that is not a power of two (``1MB`` is 10^6 bytes; ``1MiB`` and ``1m`` are 2^20).

An MPI library ignores a hint it does not know, silently (MPI 4.0, Sec. 14.2.8:
"an implementation is free to ignore all hints"), so a misspelt hint
(``romio_cb_wrte``) turns a campaign into repeats of one configuration.  The
names below are those documented by:

- the MPI standard's reserved file hints (MPI 4.0, Sec. 14.2.8);
- ROMIO, as in MPICH (ROMIO User's Guide, ANL/MCS-TM-234, "Hints"; MPICH's
  ``src/mpi/romio/adio/common/ad_hints.c`` and the Lustre and GPFS drivers);
- Cray MPICH's MPI-IO (``man intro_mpi``, "MPI-IO Hints").
"""

from __future__ import annotations

import difflib

MPI_STANDARD = ("access_style", "collective_buffering", "cb_block_size", "cb_buffer_size", "cb_nodes", "chunked",
                "chunked_item", "chunked_size", "filename", "file_perm", "io_node_list", "nb_proc", "num_io_nodes",
                "striping_factor", "striping_unit")
ROMIO = ("romio_cb_read", "romio_cb_write", "romio_ds_read", "romio_ds_write", "romio_no_indep_rw", "romio_cb_pfr",
         "romio_cb_fr_types", "romio_cb_fr_alignment", "romio_cb_ds_threshold", "romio_cb_alltoall",
         "ind_rd_buffer_size", "ind_wr_buffer_size", "cb_config_list", "start_iodevice", "direct_read",
         "direct_write", "romio_lustre_co_ratio", "romio_lustre_coll_threshold", "romio_lustre_ds_in_coll",
         "romio_min_fdomain_size", "romio_visibility_immediate", "romio_synchronized_flush")
CRAY = ("cray_cb_nodes_multiplier", "cray_cb_write_lock_mode", "direct_io", "aggregator_placement_stride",
        "overstriping_factor")

KNOWN = {**{name: "the MPI standard" for name in MPI_STANDARD}, **{name: "ROMIO (MPICH)" for name in ROMIO},
         **{name: "Cray MPI-IO" for name in CRAY}}


def unknown_hint_warnings(hints: list[str]) -> list[str]:
    """One warning per hint name in ``hints`` that no MPI library above documents, with the closest known name."""
    out = []
    for name in hints:
        if name in KNOWN:
            continue
        close = difflib.get_close_matches(name, list(KNOWN), n=1, cutoff=0.6)
        out.append(f"MPI-IO hint {name!r} is not documented by the MPI standard, ROMIO (MPICH) or Cray MPI-IO, "
                   "and an MPI library ignores hints it does not know"
                   + (f"; did you mean {close[0]!r} ({KNOWN[close[0]]})?" if close else ""))
    return out


POWER_OF_TWO = {"cb_buffer_size": "ROMIO's collective buffer", "ind_rd_buffer_size": "ROMIO's data-sieving buffer",
                "ind_wr_buffer_size": "ROMIO's data-sieving buffer", "striping_unit": "Lustre (a multiple of 64 KiB)",
                "cb_block_size": "the collective block", "romio_min_fdomain_size": "ROMIO's file domains"}
"""Size hints whose value is meant to be a power of two, and what expects it."""


def decimal_size(nbytes: int) -> str | None:
    """``"1MB = 10^6 bytes"`` for a count that is a whole number of decimal units but not of binary ones, else
    None (1MB is 10^6 bytes, 1MiB and 1m are 2^20)."""
    if nbytes <= 0 or nbytes % 1024 == 0:
        return None
    for suffix, power in (("TB", 12), ("GB", 9), ("MB", 6), ("KB", 3)):
        if nbytes % 10 ** power == 0:
            return f"{nbytes // 10 ** power}{suffix} = {nbytes // 10 ** power}x10^{power} bytes"
    return None


def power_of_two_warnings(spec) -> list[str]:
    """A warning for each level of a size hint (:data:`POWER_OF_TWO`) that is not a power of two."""
    from iotune.spec.mapping import hint_key
    from iotune.units import format_size

    out = []
    for parameter in spec.space.parameters:
        key = hint_key(parameter)
        if parameter.type != "size" or key not in POWER_OF_TWO:
            continue
        for value in parameter.levels:
            if value > 0 and value & (value - 1) == 0:
                continue
            decimal = decimal_size(value)
            out.append(f"{parameter.name} level {format_size(value)}" + (f" ({decimal})" if decimal else "")
                       + f" is not a power of two, which {POWER_OF_TWO[key]} expects"
                       + ("; MB, KB, GB are powers of 1000: write MiB (or m) for powers of 1024" if decimal else ""))
    return out


def spec_hint_warnings(spec) -> list[str]:
    """The :func:`unknown_hint_warnings` of the hints a campaign spec sets: its parameters' and ``benchmark: hints``."""
    from iotune.spec.mapping import hint_key

    names = [key for key in (hint_key(p) for p in spec.space.parameters) if key]
    names += [name for name in (spec.benchmark.get("hints") or {}) if name not in names]
    return unknown_hint_warnings(names) + power_of_two_warnings(spec)
