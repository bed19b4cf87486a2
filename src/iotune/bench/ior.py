"""IOR (hpc/ior) as a source of measurements: parse its JSON summary and hints log, or run it.

IOR reports bandwidth in MiB/s (2**20 bytes per second) and times in seconds;
``totalTime`` of a phase is its open + transfer + close span over all tasks,
printed with 4 decimals (``bwMiB`` keeps about 8 significant digits, so a
phase's seconds are taken from it).  IOR times its fsync (``-e``) inside
``wrRdTime``; iotune counts it in close (see PhaseResult).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import replace
from pathlib import Path
from typing import cast

from iotune.bench.runner import ior_args, ior_command_line, make_trial_dir
from iotune.bench.world import check_host_name, find_mpiexec, kill_tree, process_tree
from iotune.errors import BenchError
from iotune.records import API, APIS, APIS_TEXT, BenchmarkSpec, Measurement, PhaseResult
from iotune.shield import shielded
from iotune.units import MIB

_HINT_BLOCK = re.compile(r"hints returned from opened file \{(.*?)\}", re.S)
_PASSED_BLOCK = re.compile(r"hints passed to MPI_File_open\(\) \{(.*?)\}", re.S)

# IOR's dataPacketType enum -> the iotune data pattern that names what it writes (records.BenchmarkSpec).
# IOR 4 (iordef.h, utilities.c): timestamp, offset, incompressible, random.  IOR 3 (ior.h, ior.c FillBuffer):
# generic, timestamp, offset and incompressible, where the first three fill one buffer alike and reuse it
# (refilled per transfer, offsets included, only with storeFileOffset) and incompressible reuses one random
# buffer.
_PACKETS_IOR4 = ("timestamp", "ior_offset", "ior_incompressible", "offset")
_PACKETS_IOR3 = ("timestamp", "timestamp", "timestamp", "ior_incompressible")

DROP_CACHES = "/proc/sys/vm/drop_caches"
IOR_CACHE_MODES = ("auto", "drop_caches", "fadvise_dontneed", "page_cache")


def _load(source: str | os.PathLike) -> tuple[dict, str]:
    if isinstance(source, str) and source.lstrip().startswith("{"):
        text, name = source, "IOR JSON text"
    else:
        try:
            text, name = Path(source).read_text(), str(source)
        except OSError as exc:
            raise BenchError(f"cannot read IOR JSON {str(source)!r}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchError(
            f"{name} is not valid JSON (line {exc.lineno}: {exc.msg}); expected IOR -O summaryFormat=JSON output"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list):
        raise BenchError(f"{name} has no 'tests' list; expected IOR -O summaryFormat=JSON output")
    return data, name


def _data_pattern(params: dict, version: str) -> str:
    ior3 = re.match(r"\s*[0-3]\.", version) is not None
    packets = _PACKETS_IOR3 if ior3 else _PACKETS_IOR4
    index = int(params.get("dataPacketType", 0))
    if not 0 <= index < len(packets):
        raise BenchError(f"IOR dataPacketType {index} is not one IOR {version or '4'} defines")
    if ior3 and packets[index] == "timestamp" and params.get("storeFileOffset"):
        return "ior_offset"
    return packets[index]


def _read_cache_mode(params: dict, command: str) -> str:
    """How IOR's read met the page cache, as far as its parameters tell."""
    if not params["readFile"]:
        return "none"
    if str(params["api"]).upper() == "POSIX" and "--posix.odirect" in command.split():
        return "o_direct"
    if params.get("reorderTasks") and int(params.get("nodes", 1)) > 1:
        return "other_node"  # -C: each task reads what a task of another node wrote
    if params["writeFile"] and not params.get("reorderTasks") and not params.get("reorderTasksRandom"):
        return "page_cache"  # read back right after the write, on the writer's node; IOR evicts nothing
    return "unknown"


def _spec(params: dict, options: dict, version: str) -> BenchmarkSpec:
    api = str(params["api"]).upper()
    if api not in APIS:
        raise BenchError(f"IOR api {params['api']!r} is not supported ({APIS_TEXT})")
    tasks = options.get("tasks") or int(params["tasksPerNode"]) * int(params["nodes"])
    write, read = bool(params["writeFile"]), bool(params["readFile"])
    operation = "readwrite" if write and read else "write" if write else "read"
    if int(params["transferSize"]) < 1:
        raise BenchError(f"IOR transferSize must be at least 1 byte, got {params['transferSize']}")
    return BenchmarkSpec(
        api=cast(API, api),  # one of APIS: checked above
        processes=int(tasks),
        block_size=int(params["blockSize"]),
        transfer_size=int(params["transferSize"]),
        segment_count=int(params["segmentCount"]),
        file_per_process=bool(params["filePerProc"]),
        collective=bool(params["collective"]),
        operation=operation,
        fsync=bool(params["fsync"]),
        verify=bool(params.get("checkRead") or params.get("checkWrite")),
        data_pattern=_data_pattern(params, version),
    )


def _seconds(entry: dict, nbytes: int) -> float:
    """A phase's seconds: bytes over IOR's bwMiB when that agrees with totalTime (4 decimals), else totalTime."""
    total = float(entry["totalTime"])
    bandwidth = entry.get("bwMiB")
    if isinstance(bandwidth, (int, float)) and bandwidth > 0:
        precise = nbytes / MIB / bandwidth
        if abs(precise - total) <= 5e-5 + precise * 5e-5 / bandwidth + 1e-9:
            return precise
    return total


def _phase(entry: dict, nbytes: int, spec: BenchmarkSpec) -> PhaseResult:
    access = entry["access"]
    fsync_inside = access == "write" and spec.fsync  # IOR's wrRdTime holds the fsync: no split
    return PhaseResult(
        phase=access,
        bytes=nbytes,
        seconds=_seconds(entry, nbytes),
        open_seconds=float(entry["openTime"]),
        transfer_seconds=None if fsync_inside else float(entry["wrRdTime"]),
        close_seconds=None if fsync_inside else float(entry["closeTime"]),
        ops=nbytes // spec.transfer_size,
    )


def _repetitions(results: list[dict]) -> list[list[dict]]:
    """IOR lists each repetition's write then read entry; a repeated access starts a new repetition."""
    groups: list[list[dict]] = []
    for entry in results:
        if not groups or any(e["access"] == entry["access"] for e in groups[-1]):
            groups.append([])
        groups[-1].append(entry)
    return groups


def parse_ior_json(source: str | os.PathLike) -> list[tuple[BenchmarkSpec, list[Measurement]]]:
    """Read IOR's ``-O summaryFormat=JSON`` output (a path or the JSON text).

    Returns, per IOR test, the equivalent BenchmarkSpec and one COMPLETE
    Measurement per repetition.  Phase bytes are the summary's ``xsizeMiB``
    (or block * segments * tasks), ops are bytes / transfer size, seconds are
    bytes over ``bwMiB`` (``totalTime`` when they disagree), sub-phases are
    ``openTime``, ``wrRdTime``, ``closeTime`` (see PhaseResult for fsync); IOR's
    own figures are kept in ``extra["ior"][access]``.  The read cache mode is
    what IOR's parameters tell (``page_cache`` for a read right after the write
    on the same node, ``unknown`` for a read of an existing file).
    Raises BenchError (one line) when the input is not IOR JSON.
    """
    data, name = _load(source)
    command = str(data.get("Command line", ""))
    version = str(data.get("Version", ""))
    sizes = {
        (s.get("TestID"), s.get("operation")): float(s["xsizeMiB"]) * MIB
        for s in data.get("summary", [])
        if isinstance(s, dict) and "xsizeMiB" in s
    }
    out = []
    try:
        for test in data["tests"]:
            params = test["Parameters"]
            spec = _spec(params, test.get("Options", {}), version)
            cache_mode = _read_cache_mode(params, command)
            measurements = []
            for group in _repetitions(test["Results"]):
                phases, extra = [], {}
                for entry in group:
                    access = entry["access"]
                    nbytes = int(round(sizes.get((test.get("TestID"), access), spec.aggregate_bytes)))
                    phases.append(_phase(entry, nbytes, spec))
                    extra[access] = {key: entry[key] for key in _IOR_FIGURES if key in entry}
                measurements.append(
                    Measurement(
                        status="COMPLETE",
                        phases=phases,
                        read_cache_mode=cache_mode,
                        runner="ior",
                        command=command,
                        extra={"ior": extra, "ior_version": version, "ior_began": data.get("Began", "")},
                    )
                )
            out.append((spec, measurements))
    except (KeyError, TypeError, ValueError) as exc:
        raise BenchError(f"{name} is not IOR JSON as expected: missing or bad field {exc}") from None
    return out


_IOR_FIGURES = ("bwMiB", "iops", "latency", "openTime", "wrRdTime", "closeTime", "totalTime")


def parse_ior_hints_log(text: str, requested: bool = False) -> list[dict[str, str]]:
    """The ``hints returned from opened file { ... }`` blocks of IOR's text output (``--mpiio.showHints``), in order.

    With ``requested=True``, the ``hints passed to MPI_File_open() { ... }`` blocks instead.
    """
    blocks = []
    for body in (_PASSED_BLOCK if requested else _HINT_BLOCK).findall(text):
        hints = {}
        for line in body.splitlines():
            if not line.strip():
                continue
            key, sep, value = line.partition("=")
            if not sep:
                raise BenchError(f"cannot read IOR hint line {line.strip()!r} (expected 'key = value')")
            hints[key.strip()] = value.strip()
        blocks.append(hints)
    marker = "hints passed to MPI_File_open()" if requested else "hints returned from opened file"
    if text.count(marker) != len(blocks):
        raise BenchError(f"IOR hints log has an unterminated '{marker} {{' block")
    return blocks


def _evict(trial: Path, mode: str) -> str:
    """Keep the next read of the files in ``trial`` from the page cache; returns the mode used.

    Dropping the caches falls back to posix_fadvise(DONTNEED) when the kernel
    refuses it (not root, a container).
    """
    if mode == "drop_caches":
        try:
            os.sync()
            with open(DROP_CACHES, "w") as handle:
                handle.write("3\n")
            return mode
        except OSError:
            mode = "fadvise_dontneed"
    for path in sorted(p for p in trial.iterdir() if re.fullmatch(r"testFile(\.\d{8})?", p.name)):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)  # DONTNEED skips dirty pages
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    return mode


class IorRunner:
    """Runs the real ``ior`` binary under mpiexec, one repetition per trial.

    Hints go to IOR through ``IOR_HINT__MPI__<key>=<value>`` variables.  The
    hints in effect are read by an untimed IOR run (``--mpiio.showHints``, one
    8-byte transfer per process) after the timed ones: printing them inside a
    timed open costs rank 0 several percent of a phase.  ``cache_mode`` keeps
    reads from the page cache as the built-in runner does: "auto" (drop the
    caches as root, else fadvise), "drop_caches", "fadvise_dontneed", or
    "page_cache" (read right after the write, as plain IOR does).  Keeping a
    read from the cache needs two IOR runs, ``-w -k`` then ``-r -E``, with the
    eviction between them; the mode applied is the Measurement's
    ``read_cache_mode``.
    """

    name = "ior"

    def __init__(self, ior: str | None = None, mpiexec: str | None = None, timeout: float = 600.0,
                 cache_mode: str = "auto"):
        if cache_mode not in IOR_CACHE_MODES:
            raise ValueError(f"cache_mode must be one of {', '.join(IOR_CACHE_MODES)}, got {cache_mode!r}")
        found = shutil.which(ior or "ior")
        if not found:
            raise BenchError(
                f"ior not found on PATH (looked for {ior or 'ior'!r}); install IOR from github.com/hpc/ior"
            )
        self.ior = found
        self.mpiexec = find_mpiexec(mpiexec)
        check_host_name()
        self.timeout = timeout
        self.cache_mode = cache_mode
        self._trial_dirs: set[Path] = set()

    def _resolve(self, spec: BenchmarkSpec) -> str:
        if spec.operation == "write":
            return "none"
        if self.cache_mode == "auto":
            return "drop_caches" if os.geteuid() == 0 and os.access(DROP_CACHES, os.W_OK) else "fadvise_dontneed"
        return self.cache_mode

    def _invoke(self, spec: BenchmarkSpec, args: list[str], trial: Path, env: dict,
                target: str = "testFile") -> tuple[list, str]:
        summary = trial / f"summary-{target}.json"
        command = [self.mpiexec, "-n", str(spec.processes), self.ior, *args, "-o", str(trial / target),
                   "-O", "summaryFormat=JSON", "-O", f"summaryFile={summary}"]
        proc = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
        )
        try:
            stdout, stderr = proc.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            kill_tree(process_tree(proc.pid)[::-1])
            proc.communicate()
            raise
        if proc.returncode != 0:
            tail = " | ".join(line.strip() for line in (stderr + stdout).splitlines() if line.strip())
            raise BenchError(f"ior exited with status {proc.returncode}: {tail[-400:]}")
        return parse_ior_json(summary), stdout

    def _timed(self, spec: BenchmarkSpec, args: list[str], trial: Path, env: dict) -> Measurement:
        return self._invoke(spec, args, trial, env)[0][0][1][0]

    def _hints_in_effect(self, spec: BenchmarkSpec, trial: Path, env: dict) -> dict[str, str]:
        probe = replace(spec, operation="write", block_size=8, transfer_size=8, segment_count=1, fsync=False,
                        verify=False)
        _, log = self._invoke(probe, ior_args(probe) + ["--mpiio.showHints"], trial, env, target="hintsProbe")
        blocks = parse_ior_hints_log(log)
        return blocks[0] if blocks else {}

    def run(self, spec: BenchmarkSpec, scratch: Path) -> Measurement:
        """Run one IOR repetition of ``spec`` in a fresh subdirectory of ``scratch``, removed afterwards."""
        started = time.perf_counter()
        problem = spec.problem()
        trial = None
        mode = "none"
        try:
            if problem:
                raise BenchError(f"invalid benchmark spec: {problem}")
            if spec.layout:
                raise BenchError("the ior runner does not set file layouts (stripe_count, ...); use the builtin runner")
            if spec.api == "HDF5":
                raise BenchError("the ior runner neither sets nor reads back HDF5 settings; api HDF5 runs on the "
                                 "builtin runner")
            try:
                with shielded():  # a signal between mkdtemp and the assignments would leave the directory
                    trial = make_trial_dir(Path(scratch))
                    self._trial_dirs.add(trial)
            except OSError as exc:
                raise BenchError(f"scratch directory {str(scratch)!r} is not usable: {exc.strerror or exc}") from None
            env = {**os.environ, **spec.env}
            env.update({f"IOR_HINT__MPI__{key}": str(value) for key, value in spec.hints.items()})
            mode = self._resolve(spec)
            if spec.operation == "write" or (spec.operation == "readwrite" and mode == "page_cache"):
                measurement = self._timed(spec, ior_args(spec), trial, env)
            else:
                written = self._timed(spec, ior_args(spec, "w") + ["-k"], trial, env)
                if mode != "page_cache":
                    mode = _evict(trial, mode)
                measurement = self._timed(spec, ior_args(spec, "r") + ["-E"], trial, env)
                if spec.operation == "readwrite":
                    measurement.phases = [*written.phases, *measurement.phases]
                    measurement.extra["ior"] = {**written.extra["ior"], **measurement.extra["ior"]}
            measurement.read_cache_mode = mode
            if spec.api == "MPIIO":
                measurement.hints_in_effect = self._hints_in_effect(spec, trial, env)
        except subprocess.TimeoutExpired:
            measurement = Measurement.failed(f"ior did not finish within {self.timeout:g} s")
        except (BenchError, OSError, IndexError) as exc:
            measurement = Measurement.failed(str(exc).replace("\n", " "))
        finally:
            if trial is not None:
                self._remove(trial)
        measurement.hints_requested = dict(spec.hints)
        measurement.runner = self.name
        measurement.command = ior_command_line(spec, str(trial / "testFile") if trial else None, mode)
        measurement.wall_seconds = time.perf_counter() - started
        return measurement

    def _remove(self, trial: Path) -> None:
        with shielded():
            shutil.rmtree(trial, ignore_errors=True)
            self._trial_dirs.discard(trial)

    def close(self) -> None:
        """Remove a trial directory that a signal kept from its removal (each trial is its own mpiexec)."""
        for trial in list(self._trial_dirs):
            self._remove(trial)
