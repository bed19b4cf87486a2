"""IOR (hpc/ior) as a source of measurements: parse its JSON summary and hints log, or run it.

IOR reports bandwidth in MiB/s (2**20 bytes per second) and times in seconds;
``totalTime`` of a phase is its open + transfer + close span over all tasks.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from iotune.bench.runner import ior_args, ior_command_line, make_trial_dir
from iotune.units import MIB
from iotune.records import BenchmarkSpec, Measurement, PhaseResult
from iotune.bench.world import find_mpiexec, kill_tree, process_tree
from iotune.errors import BenchError

_HINT_BLOCK = re.compile(r"hints returned from opened file \{(.*?)\}", re.S)
_PASSED_BLOCK = re.compile(r"hints passed to MPI_File_open\(\) \{(.*?)\}", re.S)


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


def _spec(params: dict, options: dict) -> BenchmarkSpec:
    api = str(params["api"]).upper()
    if api not in ("POSIX", "MPIIO"):
        raise BenchError(f"IOR api {params['api']!r} is not supported (POSIX or MPIIO)")
    tasks = options.get("tasks") or int(params["tasksPerNode"]) * int(params["nodes"])
    write, read = bool(params["writeFile"]), bool(params["readFile"])
    operation = "readwrite" if write and read else "write" if write else "read"
    return BenchmarkSpec(
        api=api,
        processes=int(tasks),
        block_size=int(params["blockSize"]),
        transfer_size=int(params["transferSize"]),
        segment_count=int(params["segmentCount"]),
        file_per_process=bool(params["filePerProc"]),
        collective=bool(params["collective"]),
        operation=operation,
        fsync=bool(params["fsync"]),
        verify=bool(params.get("checkRead") or params.get("checkWrite")),
        # IOR's enum: 0 timestamp (its default, one buffer reused); offset, incompressible and random all
        # make every transfer's data unique, which is what "offset" stands for here
        data_pattern="timestamp" if int(params.get("dataPacketType", 0)) == 0 else "offset",
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
    ``totalTime`` and the sub-phases ``openTime``, ``wrRdTime``, ``closeTime``.
    Raises BenchError (one line) when the input is not IOR JSON.
    """
    data, name = _load(source)
    command = str(data.get("Command line", ""))
    sizes = {
        (s.get("TestID"), s.get("operation")): float(s["xsizeMiB"]) * MIB
        for s in data.get("summary", [])
        if isinstance(s, dict) and "xsizeMiB" in s
    }
    out = []
    try:
        for test in data["tests"]:
            spec = _spec(test["Parameters"], test.get("Options", {}))
            measurements = []
            for group in _repetitions(test["Results"]):
                phases, extra = [], {}
                for entry in group:
                    access = entry["access"]
                    nbytes = int(round(sizes.get((test.get("TestID"), access), spec.aggregate_bytes)))
                    phases.append(
                        PhaseResult(
                            phase=access,
                            bytes=nbytes,
                            seconds=float(entry["totalTime"]),
                            open_seconds=float(entry["openTime"]),
                            transfer_seconds=float(entry["wrRdTime"]),
                            close_seconds=float(entry["closeTime"]),
                            ops=nbytes // spec.transfer_size,
                        )
                    )
                    extra[access] = {k: entry[k] for k in ("bwMiB", "iops", "latency") if k in entry}
                measurements.append(
                    Measurement(
                        status="COMPLETE",
                        phases=phases,
                        read_cache_mode="page_cache" if spec.operation != "write" else "none",
                        runner="ior",
                        command=command,
                        extra={"ior": extra, "ior_version": data.get("Version", ""),
                               "ior_began": data.get("Began", "")},
                    )
                )
            out.append((spec, measurements))
    except (KeyError, TypeError, ValueError) as exc:
        raise BenchError(f"{name} is not IOR JSON as expected: missing or bad field {exc}") from None
    return out


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


class IorRunner:
    """Runs the real ``ior`` binary under mpiexec, one repetition per trial.

    Hints go to IOR through ``IOR_HINT__MPI__<key>=<value>`` variables; the
    hints in effect come from ``--mpiio.showHints``.  Reads are not protected
    from the page cache (``read_cache_mode`` "page_cache").
    """

    name = "ior"

    def __init__(self, ior: str | None = None, mpiexec: str | None = None, timeout: float = 600.0):
        found = shutil.which(ior or "ior")
        if not found:
            raise BenchError(
                f"ior not found on PATH (looked for {ior or 'ior'!r}); install IOR from github.com/hpc/ior"
            )
        self.ior = found
        self.mpiexec = find_mpiexec(mpiexec)
        self.timeout = timeout

    def _invoke(self, spec: BenchmarkSpec, args: list[str], trial: Path, env: dict) -> tuple[dict, str]:
        summary = trial / "summary.json"
        command = [self.mpiexec, "-n", str(spec.processes), self.ior, *args, "-o", str(trial / "testFile")]
        if spec.api == "MPIIO":
            command.append("--mpiio.showHints")
        command += ["-O", "summaryFormat=JSON", "-O", f"summaryFile={summary}"]
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

    def run(self, spec: BenchmarkSpec, scratch: Path) -> Measurement:
        """Run one IOR repetition of ``spec`` in a fresh subdirectory of ``scratch``, removed afterwards."""
        started = time.perf_counter()
        problem = spec.problem()
        trial = None
        try:
            if problem:
                raise BenchError(f"invalid benchmark spec: {problem}")
            try:
                trial = make_trial_dir(Path(scratch))
            except OSError as exc:
                raise BenchError(f"scratch directory {str(scratch)!r} is not usable: {exc.strerror or exc}") from None
            env = {**os.environ, **spec.env}
            env.update({f"IOR_HINT__MPI__{key}": str(value) for key, value in spec.hints.items()})
            if spec.operation == "read":
                self._invoke(spec, ior_args(spec, "w") + ["-k"], trial, env)
                parsed, log = self._invoke(spec, ior_args(spec, "r") + ["-E"], trial, env)
            else:
                parsed, log = self._invoke(spec, ior_args(spec), trial, env)
            measurement = parsed[0][1][0]
            hints = parse_ior_hints_log(log)
            measurement.hints_in_effect = hints[0] if hints else {}
        except subprocess.TimeoutExpired:
            measurement = Measurement.failed(f"ior did not finish within {self.timeout:g} s")
        except (BenchError, OSError, IndexError) as exc:
            measurement = Measurement.failed(str(exc).replace("\n", " "))
        finally:
            if trial is not None:
                shutil.rmtree(trial, ignore_errors=True)
        measurement.hints_requested = dict(spec.hints)
        measurement.runner = self.name
        measurement.command = ior_command_line(spec, str(trial / "testFile") if trial else None)
        measurement.wall_seconds = time.perf_counter() - started
        return measurement

    def close(self) -> None:
        """Nothing to release: each trial is its own mpiexec."""
