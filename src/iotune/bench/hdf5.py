"""One rank's write or read phase through parallel HDF5 (``api: HDF5``), and the settings read back.

The data is the IOR pattern of the spec spread over ``datasets`` 1-D byte datasets: dataset ``d`` holds
part ``d`` of every block (``block_size / datasets`` bytes per rank and segment, laid out as IOR lays out a
shared file, or a file per process), and every rank writes the datasets in the same order, so that a
collective transfer has every rank in the same call.  A shared file goes through the MPI-IO driver with the
spec's hints as its MPI_Info; a file per process through the POSIX driver (``sec2``).  Dataset creation
counts in the open time, the flush (the spec's fsync) and H5Fclose in the close time, as IOR's HDF5 backend.

Every setting (:mod:`iotune.spec.hdf5`) is read back from the file written: the access properties from the
open file (H5Fget_access_plist, H5Fget_mdc_config), the transfer mode HDF5 actually used
(H5Pget_mpio_actual_io_mode, which h5py does not wrap), and after closing, from the file itself: its
creation properties (file-space strategy, page size), its datasets, their layout, chunks and addresses (the
alignment in effect is the one those addresses have).  h5py is imported only here, in a worker rank.
"""

from __future__ import annotations

import ctypes
import functools
import math
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from iotune.errors import BenchError
from iotune.records import BenchmarkSpec
from iotune.spec.hdf5 import MDC_MAX_SIZE, as_asked, check_hdf5

PROBE = """
import sys
try:
    import h5py
except ImportError:
    sys.exit(print("h5py is not installed") or 1)
if not h5py.get_config().mpi:
    sys.exit(print("h5py is built without MPI (PyPI's wheel is serial)") or 1)
import mpi4py.MPI
if "libmpich.so" in open("/proc/self/maps").read():
    sys.exit(print("h5py loads Debian's libmpich beside the venv's MPICH (two MPI libraries)") or 1)
"""
"""Run by ``python -c``: prints why parallel HDF5 cannot run in this interpreter and exits 1, or exits 0."""
INSTALL_HINT = "run scripts/install-hdf5 (parallel h5py; see the README)"
# H5Pget_mpio_actual_io_mode's answer for an independent transfer (H5Ppublic.h, H5D_mpio_actual_io_mode_t)
NO_COLLECTIVE = 0
DATASET_NAME = "d{:05d}"
FS_STRATEGY_NAMES = {"fsm_aggr": "FSPACE_STRATEGY_FSM_AGGR", "page": "FSPACE_STRATEGY_PAGE",
                     "aggr": "FSPACE_STRATEGY_AGGR", "none": "FSPACE_STRATEGY_NONE"}


def _fs_strategies() -> dict[str, int]:
    from h5py import h5f

    return {name: getattr(h5f, constant) for name, constant in FS_STRATEGY_NAMES.items()}


def parallel_h5py_problem(python: str = sys.executable) -> str | None:
    """Why ``python`` cannot run parallel HDF5 (asked of a separate interpreter: importing h5py starts MPI),
    in one line, or None."""
    done = subprocess.run([python, "-c", PROBE], capture_output=True, text=True, timeout=120)
    if done.returncode == 0:
        return None
    return done.stdout.strip() or (done.stderr.strip().splitlines() or ["the h5py probe failed"])[-1]


def _h5py():
    try:
        import h5py
    except ImportError:
        raise BenchError(f"api HDF5 needs h5py built for MPI: {INSTALL_HINT}") from None
    if not h5py.get_config().mpi:
        raise BenchError(f"api HDF5 needs h5py built for MPI; this one is serial: {INSTALL_HINT}")
    return h5py


@functools.cache
def _libhdf5():
    """The HDF5 library h5py runs on (already loaded), for the calls h5py does not wrap."""
    from h5py import defs

    return ctypes.CDLL(defs.__file__)  # h5py's declarations of HDF5's calls: dlsym finds them in the libhdf5 it links


def _call(name: str, *args) -> None:
    if getattr(_libhdf5(), name)(*args) < 0:
        raise BenchError(f"{name} failed")


def _actual_io_mode(dxpl) -> int:
    mode = ctypes.c_int(-1)
    _call("H5Pget_mpio_actual_io_mode", ctypes.c_int64(dxpl.id), ctypes.byref(mode))
    return mode.value


def _set_coll_metadata(fapl, on: bool) -> None:
    for name in ("H5Pset_all_coll_metadata_ops", "H5Pset_coll_metadata_write"):
        _call(name, ctypes.c_int64(fapl.id), ctypes.c_bool(on))


def _coll_metadata(fapl) -> bool:
    flags = []
    for name in ("H5Pget_all_coll_metadata_ops", "H5Pget_coll_metadata_write"):
        flag = ctypes.c_bool(False)
        _call(name, ctypes.c_int64(fapl.id), ctypes.byref(flag))
        flags.append(flag.value)
    return all(flags)


class Hdf5Phase:
    """The HDF5 side of a rank's phase; ``worker`` is the kernel's phase (buffer, pattern, comm), ``offsets_of``
    gives this rank's transfer offsets in bytes for a spec (IOR's layout)."""

    def __init__(self, worker, offsets_of: Callable[[BenchmarkSpec], list[int]]):
        self.worker = worker
        spec = worker.spec
        self.settings = as_asked(check_hdf5(spec.hdf5), spec.transfer_size)
        self.datasets = int(self.settings["datasets"])
        part = replace(spec, block_size=spec.block_size // self.datasets)
        self.offsets = offsets_of(part)
        self.length = part.bytes_per_process if spec.file_per_process else part.aggregate_bytes
        self.in_effect: dict[str, str] | None = None
        self.hints: dict[str, str] | None = None

    def _fapl(self, info):
        from h5py import h5p

        spec, settings = self.worker.spec, self.settings
        fapl = h5p.create(h5p.FILE_ACCESS)
        if spec.file_per_process:
            fapl.set_fapl_sec2()
        else:
            fapl.set_fapl_mpio(self.worker.comm, info)
            _set_coll_metadata(fapl, settings["coll_metadata"] == "true")
        fapl.set_alignment(int(settings["alignment_threshold"]), int(settings["alignment"]))
        fapl.set_meta_block_size(int(settings["meta_block_size"]))
        cache = fapl.get_mdc_config()
        initial = int(settings["mdc_initial_size"])
        cache.max_size = max(cache.max_size, MDC_MAX_SIZE, initial)
        cache.min_size = min(cache.min_size, initial)
        cache.initial_size = initial
        cache.set_initial_size = True
        fapl.set_mdc_config(cache)
        return fapl

    def _fcpl(self):
        from h5py import h5p

        fcpl = h5p.create(h5p.FILE_CREATE)
        strategy = self.settings["fs_strategy"]
        fcpl.set_file_space_strategy(_fs_strategies()[strategy], False, 1)
        if strategy == "page":
            fcpl.set_file_space_page_size(int(self.settings["fs_page_size"]))
        return fcpl

    def _dcpl(self):
        from h5py import h5d, h5p

        dcpl = h5p.create(h5p.DATASET_CREATE)
        dcpl.set_fill_time(h5d.FILL_TIME_NEVER)  # the phase writes every byte; no fill first
        if self.settings["chunked"] == "true":
            dcpl.set_chunk((int(self.settings["chunk_size"]),))
        return dcpl

    def run(self, phase: str, clock, info) -> dict:
        """Open (creating the datasets when writing), transfer, flush when asked, close; the kernel's timings."""
        _h5py()
        from h5py import h5d, h5f, h5fd, h5p, h5s, h5t

        worker, spec = self.worker, self.worker.spec
        path = str(worker.path).encode()
        fapl = self._fapl(info)
        if phase == "write":
            fid = h5f.create(path, h5f.ACC_TRUNC, fcpl=self._fcpl(), fapl=fapl)
            space = h5s.create_simple((self.length,))
            dcpl = self._dcpl()
            datasets = [h5d.create(fid, DATASET_NAME.format(d).encode(), h5t.NATIVE_UINT8, space, dcpl=dcpl)
                        for d in range(self.datasets)]
        else:
            fid = h5f.open(path, h5f.ACC_RDONLY, fapl=fapl)
            datasets = [h5d.open(fid, DATASET_NAME.format(d).encode()) for d in range(self.datasets)]
        dxpl = h5p.create(h5p.DATASET_XFER)
        if not spec.file_per_process:
            dxpl.set_dxpl_mpio(h5fd.MPIO_COLLECTIVE if spec.collective else h5fd.MPIO_INDEPENDENT)
        try:
            open_end = clock()
            moved, errors, modes = self._transfer(phase, datasets, dxpl)
            transfer_end = clock()
            if phase == "write" and spec.fsync:
                h5f.flush(fid, h5f.SCOPE_LOCAL)  # with MPI-IO: MPI_File_sync
            if phase == "write" and self.in_effect is None:  # microseconds, in the close time: the file is open
                self.in_effect = self._access_in_effect(fid, modes)
                self.hints = _hints_in_effect(fid)
        finally:
            for dataset in datasets:
                dataset.close()
            fid.close()
        close_end = clock()
        if phase == "write" and (spec.file_per_process or worker.rank == 0) and self.in_effect is not None:
            self.in_effect.update(self._file_in_effect(worker.path))
        return worker._timings(phase, open_end, transfer_end, close_end, moved, errors)

    def _transfer(self, phase: str, datasets, dxpl) -> tuple[int, int, set[int]]:
        from h5py import h5s

        worker, spec = self.worker, self.worker.spec
        size = spec.transfer_size
        memory = h5s.create_simple((size,))
        moved = errors = 0
        modes: set[int] = set()
        for index, dataset in enumerate(datasets):
            selection = dataset.get_space()
            for offset in self.offsets:
                where = index * self.length + offset  # what the pattern names this transfer by
                selection.select_hyperslab((offset,), (size,))
                if phase == "write":
                    worker._fill(where)
                    dataset.write(memory, selection, worker.buffer, dxpl=dxpl)
                    if not spec.file_per_process:
                        modes.add(_actual_io_mode(dxpl))
                else:
                    dataset.read(memory, selection, worker.buffer, dxpl=dxpl)
                    if spec.verify:
                        errors += worker._check(where)
                moved += size
        return moved, errors, modes

    def _access_in_effect(self, fid, modes: set[int]) -> dict[str, str]:
        """The access settings of the open file, as HDF5 holds them, and the transfer mode it used."""
        from h5py import h5fd

        fapl = fid.get_access_plist()
        threshold, alignment = fapl.get_alignment()
        found = {
            "driver": "mpio" if fapl.get_driver() == h5fd.MPIO else "sec2",
            "alignment_threshold": str(threshold),
            "alignment": str(alignment),
            "meta_block_size": str(fapl.get_meta_block_size()),
            "mdc_initial_size": str(fid.get_mdc_config().initial_size),
        }
        if found["driver"] == "mpio":
            found["coll_metadata"] = "true" if _coll_metadata(fapl) else "false"
            found["collective"] = "false" if modes <= {NO_COLLECTIVE} else "true"
        return found

    def _file_in_effect(self, path: Path) -> dict[str, str]:
        """What the closed file holds: its file-space strategy and page size, datasets, layouts, chunks, and the
        alignment its datasets' addresses have."""
        from h5py import h5d, h5f

        found: dict[str, str] = {}
        fid = h5f.open(str(path).encode(), h5f.ACC_RDONLY)  # the default (serial) driver: one rank reads it
        try:
            strategy, _, _ = fid.get_create_plist().get_file_space_strategy()
            found["fs_strategy"] = {v: k for k, v in _fs_strategies().items()}.get(strategy, str(strategy))
            if found["fs_strategy"] == "page":
                found["fs_page_size"] = str(fid.get_create_plist().get_file_space_page_size())
            names = [name for name in _names(fid)]
            found["datasets"] = str(len(names))
            layouts, chunks, addresses = set(), set(), []
            threshold = int(self.in_effect["alignment_threshold"]) if self.in_effect else 1
            for name in names:
                dataset = h5d.open(fid, name)
                try:
                    dcpl = dataset.get_create_plist()
                    chunked = dcpl.get_layout() == h5d.CHUNKED
                    layouts.add("true" if chunked else "false")
                    if chunked:
                        chunk = dcpl.get_chunk()[0]
                        chunks.add(str(chunk))
                        if chunk >= threshold:
                            addresses += [dataset.get_chunk_info(i).byte_offset
                                          for i in range(min(dataset.get_num_chunks(), 4))]
                    elif self.length >= threshold:
                        addresses.append(dataset.get_offset())
                finally:
                    dataset.close()
            found["chunked"] = ",".join(sorted(layouts))
            if chunks:
                found["chunk_size"] = ",".join(sorted(chunks))
            asked = int(self.settings["alignment"])
            if addresses and any(a % asked for a in addresses if a is not None):
                found["alignment"] = str(math.gcd(*[a for a in addresses if a is not None]))
        finally:
            fid.close()
        return found


def _names(fid) -> list[bytes]:
    from h5py import h5g

    group = h5g.open(fid, b"/")
    try:
        return [group.get_objname_by_idx(i) for i in range(group.get_num_objs())]
    finally:
        group.close()


def _hints_in_effect(fid) -> dict[str, str] | None:
    """The MPI-IO hints in effect on the file HDF5 opened: MPI_File_get_info on the driver's own MPI_File
    (H5Fget_vfd_handle; the MPI_Info of H5Pget_fapl_mpio is only the one passed in).  None without MPI-IO."""
    from h5py import h5fd
    from mpi4py import MPI

    fapl = fid.get_access_plist()
    if fapl.get_driver() != h5fd.MPIO:
        return None
    where = ctypes.c_void_p()
    _call("H5Fget_vfd_handle", ctypes.c_int64(fid.id), ctypes.c_int64(fapl.id), ctypes.byref(where))
    handle = ctypes.c_void_p.from_address(where.value).value if where.value else None  # MPICH: a pointer
    if handle is None:
        raise BenchError("H5Fget_vfd_handle gave no MPI_File")
    info = MPI.File.fromhandle(handle).Get_info()  # a view of HDF5's handle: never closed here
    try:
        return {key: (info.Get(key) or "").strip() for key in info.keys()}
    finally:
        info.Free()
