"""IOR output received from someone else, checked before anything of it is parsed into trials.

``import-ior`` reads files that may be damaged or crafted: not UTF-8, nested
a hundred thousand levels deep, a ``transferSize`` of 0, negative or NaN
times, a ``summary`` that is a number.  :func:`read_ior_text` refuses what is
not text or JSON of a sane size; :func:`check_ior_document` walks the fields
the importer uses and says, in one line, which test and which entry is wrong.
"""

from __future__ import annotations

import json
import math
import stat
from pathlib import Path
from typing import Any

from iotune.errors import IotuneError

MAX_JSON_BYTES = 64 * 2**20
"""Largest IOR JSON summary read (IOR's are a few KiB per test)."""
MAX_LOG_BYTES = 256 * 2**20
"""Largest IOR text output read beside it for hints."""
MAX_SIZE = 2**50
"""Largest block or transfer size accepted (1 PiB), as the spec's own limit."""


class IorInputError(IotuneError, ValueError):
    """An IOR output file cannot be imported; the message names the file and the field."""


def read_text(path: Path, limit: int, what: str, errors: str = "strict") -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes (``errors="replace"``: any bytes)."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise IorInputError(f"{path} is not a regular file; give IOR's -O summaryFormat=JSON output")
        if info.st_size > limit:
            raise IorInputError(f"{path} is {info.st_size} bytes, more than the {limit} an {what} may be")
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise IorInputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise IorInputError(f"{path} is more than the {limit} bytes an {what} may be")
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as exc:
        raise IorInputError(f"{path} is not UTF-8 text (byte {exc.start}); expected IOR's {what}") from None


def read_ior_text(path: Path) -> str:
    """The text of IOR's JSON summary at ``path``, once :func:`check_ior_document` has found it sound."""
    text = read_text(path, MAX_JSON_BYTES, "IOR JSON summary")
    _checked(text, path)
    return text


def read_ior_json(path: Path) -> dict:
    """IOR's JSON summary as checked data (:func:`check_ior_document`)."""
    return _checked(read_text(path, MAX_JSON_BYTES, "IOR JSON summary"), path)


def _checked(text: str, path: Path) -> dict:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise IorInputError(f"{path} is not valid JSON ({str(exc).splitlines()[0]}); expected IOR "
                            "-O summaryFormat=JSON output") from None
    except RecursionError:
        raise IorInputError(f"{path} nests JSON too deeply to be IOR output") from None
    check_ior_document(data, str(path))
    return data


def check_ior_document(data: Any, name: str) -> None:
    """Refuse IOR JSON whose fields the importer uses are missing, of the wrong type or out of range."""
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list) or not data["tests"]:
        raise IorInputError(f"{name} has no 'tests' list; expected IOR -O summaryFormat=JSON output")
    for key in ("Command line", "Version", "Began"):
        if key in data and not isinstance(data[key], str):
            raise IorInputError(f"{name}: '{key}' must be text, got {_show(data[key])}")
    summary = data.get("summary", [])
    if not isinstance(summary, list):
        raise IorInputError(f"{name}: 'summary' must be a list, got {_show(summary)}")
    for index, entry in enumerate(summary, start=1):
        where = f"{name}: summary entry #{index}"
        if not isinstance(entry, dict):
            raise IorInputError(f"{where} must be an object, got {_show(entry)}")
        if "xsizeMiB" in entry:
            _number(entry["xsizeMiB"], f"{where} xsizeMiB", maximum=MAX_SIZE / 2**20)
    for number, test in enumerate(data["tests"], start=1):
        where = f"{name}: test #{number}"
        if not isinstance(test, dict):
            raise IorInputError(f"{where} must be an object, got {_show(test)}")
        params = test.get("Parameters")
        options = test.get("Options", {})
        if not isinstance(params, dict) or not isinstance(options, dict):
            raise IorInputError(f"{where} needs 'Parameters' and 'Options' objects")
        for key in ("blockSize", "transferSize", "segmentCount"):
            _whole(params.get(key), f"{where} Parameters {key}", 1, MAX_SIZE)
        if params["blockSize"] % params["transferSize"]:
            raise IorInputError(f"{where}: blockSize {params['blockSize']} is not a multiple of transferSize "
                                f"{params['transferSize']}")
        if options.get("tasks") is not None:
            _whole(options["tasks"], f"{where} Options tasks", 1, 1 << 20)
        else:
            for key in ("tasksPerNode", "nodes"):
                _whole(params.get(key), f"{where} Parameters {key}", 1, 1 << 20)
        for key in ("writeFile", "readFile", "filePerProc", "collective", "fsync"):
            _whole(params.get(key), f"{where} Parameters {key}", 0, 1)
        if not params["writeFile"] and not params["readFile"]:
            raise IorInputError(f"{where}: neither writeFile nor readFile is set")
        results = test.get("Results")
        if not isinstance(results, list) or not results:
            raise IorInputError(f"{where} has no 'Results' list")
        for index, entry in enumerate(results, start=1):
            _result(entry, f"{where} result #{index}")


def _result(entry: Any, where: str) -> None:
    if not isinstance(entry, dict):
        raise IorInputError(f"{where} must be an object, got {_show(entry)}")
    if entry.get("access") not in ("write", "read"):
        raise IorInputError(f"{where}: access must be write or read, got {_show(entry.get('access'))}")
    _number(entry.get("totalTime"), f"{where} totalTime", positive=True)
    for key in ("openTime", "wrRdTime", "closeTime"):
        _number(entry.get(key), f"{where} {key}")
    for key in ("bwMiB", "iops", "latency"):
        if key in entry:
            _number(entry[key], f"{where} {key}")


def _whole(value: Any, what: str, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise IorInputError(f"{what} must be a whole number from {low} to {high}, got {_show(value)}")


def _number(value: Any, what: str, *, positive: bool = False, maximum: float = 1e12) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0 or (positive and value == 0) or value > maximum:
        raise IorInputError(f"{what} must be a finite number {'> 0' if positive else '>= 0'}, got {_show(value)}")


def _show(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."
