"""The flat form of a store: ``Store.rows()`` as CSV or Parquet, and such a file read back.

An export's rows carry each study's space, spec, settings and description in
the ``study_*`` columns of the study's first row, so the file imports back as
a study that ``results``, ``report`` and ``tune`` use, its values checked
against that space. Importing flat rows regroups them into the JSON export's
shape and loses what the rows do not carry: each trial's command, requested
hints, wall time, extra data, benchmark spec and finish time; platform details
other than hostname, file system type, MPI and iotune versions. CSV also loses
value types: a configuration value that reads as a number or True/False comes
back as one, an empty cell as None. Parquet keeps the types. In a file holding
several studies, an empty parameter column that is not in a study's space is
taken to belong to another study and left out of that study's configurations.
A study's rows and a trial's rows come one after another, as an export writes
them; rows are read and imported as they come.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import re
import shlex
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from iotune.errors import SpaceError, StoreError
from iotune.store import queries

_INT_COLUMNS = {"repeat", "bytes", "ops", "verify_errors"}
_FLOAT_COLUMNS = {"seconds", "bandwidth_mib", "open_seconds", "transfer_seconds", "close_seconds"}
_NUMBER = re.compile(r"^-?\d+$")
MAX_CELL = 4 << 20
"""Longest cell read, in characters: a study's space or spec YAML (a range of 100,000 levels is about 1 MiB)."""


def write_rows(stream: IO[bytes], fmt: str, rows: list[dict]) -> None:
    """Flat rows as "csv" or "parquet" into a binary stream; the columns of an empty export are the base columns."""
    columns = list(rows[0]) if rows else list(queries.BASE_COLUMNS)
    if fmt == "csv":
        out = io.TextIOWrapper(stream, encoding="utf-8", newline="")
        writer = csv.DictWriter(out, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
        out.flush()
        out.detach()
    else:
        pa, pq = _pyarrow()
        arrays = [_arrow_column(pa, [row[name] for row in rows]) for name in columns]
        pq.write_table(pa.Table.from_arrays(arrays, names=columns), stream)




def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise StoreError("Parquet needs pyarrow: pip install pyarrow") from None
    return pa, pq


def _arrow_column(pa, values: list):
    """An Arrow array of the values' own type, or of their text when a column mixes types."""
    if all(v is None for v in values):
        return pa.array(values, type=pa.string())
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([None if v is None else str(v) for v in values], type=pa.string())


def read_parquet(path: Path) -> tuple[list[str], Iterator[dict]]:
    """The columns of a Parquet export and its rows, with their types, read a batch at a time."""
    pa, pq = _pyarrow()
    try:
        source = pq.ParquetFile(path)
        columns = list(source.schema_arrow.names)
    except (pa.ArrowException, OSError) as exc:
        raise StoreError(f"{path} is not a readable Parquet file: {exc}") from None

    def rows() -> Iterator[dict]:
        try:
            for batch in source.iter_batches(batch_size=4096):
                yield from batch.to_pylist()
        except (pa.ArrowException, OSError) as exc:
            raise StoreError(f"{path} is not a readable Parquet file: {exc}") from None

    return columns, rows()


def read_csv(handle: IO[str], path: Path) -> tuple[list[str], Iterator[dict]]:
    """The columns of a CSV export (text ``handle`` opened with ``newline=""``) and its rows, read one at a
    time, with numbers and booleans read back; StoreError if it is not one.

    The header is checked before any row is read, so a file that is not an export is refused at once.
    """
    csv.field_size_limit(max(csv.field_size_limit(), MAX_CELL))
    try:
        reader = csv.reader(handle)
        columns = next(reader, None)
    except (UnicodeDecodeError, csv.Error) as exc:
        raise StoreError(f"{path} is not an iotune export: {str(exc).splitlines()[0]}") from None
    if not columns or "trial_uid" not in columns:
        raise StoreError(f"{path} is not an iotune export (JSON, or CSV/Parquet rows with a trial_uid column)")
    readers = [(name, _reader(name)) for name in columns]

    def rows() -> Iterator[dict]:
        try:
            for values in reader:
                if not values:
                    continue
                if len(values) != len(readers):
                    number = reader.line_num
                    raise StoreError(f"{path}: row {number} has more cells than the header"
                                     if len(values) > len(readers) else
                                     f"{path}: row {number} has fewer cells than the header (the file was cut short?)")
                yield {name: None if text == "" else text if read is None else read(text)
                       for (name, read), text in zip(readers, values, strict=True)}
        except (UnicodeDecodeError, csv.Error) as exc:
            raise StoreError(f"{path} is not an iotune export: {str(exc).splitlines()[0]}") from None
        if not _ends_with_line_break(path):
            raise StoreError(f"{path} does not end with a line break: it was cut short")

    return list(columns), rows()


def _ends_with_line_break(path: Path) -> bool:
    """Whether the file ends with a line break, as every export does (a file cut mid-cell does not); True
    when that cannot be looked at (not a regular file, or empty)."""
    try:
        with open(path, "rb") as handle:
            if not handle.seekable() or handle.seek(0, 2) == 0:
                return True
            handle.seek(-1, 2)
            return handle.read(1) == b"\n"
    except OSError:
        return True


def _reader(name: str):
    """How a CSV column's text is read back: None keeps it as text."""
    if name in _INT_COLUMNS:
        return _int
    if name in _FLOAT_COLUMNS:
        return _float
    if name.startswith("cfg."):
        return _guess
    return None


def _int(text: str):
    return int(text) if _NUMBER.match(text) else text


def _float(text: str):
    try:
        return float(text)
    except ValueError:
        return text


@functools.lru_cache(maxsize=4096)  # a configuration's values come again on every row of its repeats
def _guess(text: str):
    if text in ("True", "False"):
        return text == "True"
    if _NUMBER.match(text):
        return int(text)
    value = _float(text)
    return value if isinstance(value, float) else text


FULL_COLUMNS = ("study", "trial_uid", "config_key", "state")
"""Columns that make flat rows a whole export; without study, config_key and state they are the compact form."""


def rows_document(columns: list[str], rows: Iterable[dict], path: Path, spec=None, study: str | None = None) -> dict:
    """The flat rows regrouped into the JSON export's shape as they are read: a study for each run of rows of one
    study, a trial for each run of rows of one trial (as an export writes them), lazily, so that an import holds a
    batch of trials rather than the file.

    Each trial remembers the file row it starts on (``_row``, as a spreadsheet
    numbers it) for error messages, and the platform its row describes
    (``_platform``).  Compact rows (no study, config_key and state:
    ``data/ground_truth/compact.py``) need the ``spec`` they were measured
    with; they become COMPLETE trials of study ``study`` (default: the spec's name).
    """
    names = set(columns)
    compact = not {"study", "config_key", "state"} <= names
    if compact and spec is None:
        absent = ", ".join(c for c in FULL_COLUMNS if c not in names)
        raise StoreError(f"{path} has flat rows without the {absent} column(s) of an iotune export: if it is a "
                         "compact CSV (data/ground_truth/compact.py), import it with the spec it was measured "
                         f"with: iotune import {shlex.quote(path.name)} --spec SPEC.yaml [--study NAME]")
    if not compact and (spec is not None or study is not None):
        raise StoreError(f"{path} holds whole exported rows (study, config_key, state); import it without --spec "
                         "and --study")
    reader = _Rows(rows, 1 if path.suffix.lower() == ".parquet" else 2, path)
    first = reader.peek()
    host = first[1].get("hostname") if first is not None else None

    def study_of(number: int, row: dict) -> str:
        name = (study or spec.name) if compact else row["study"]
        if not isinstance(name, str):
            raise StoreError(f"{path}: row {number}: study must be text, got {name!r}")
        return name

    def trials_of(name: str) -> Iterator[dict]:
        while (ahead := reader.peek()) is not None and study_of(*ahead) == name:
            number, row = next(reader)
            trial = _trial_doc(row, number, spec if compact else None, path)
            while True:
                if row.get("phase") is not None:
                    fields = ("phase", "bytes", "seconds", *queries.PHASE_FIELDS)
                    trial["measurements"].append({k: row.get(k) for k in fields})
                ahead = reader.peek()
                if ahead is None or study_of(*ahead) != name or ahead[1]["trial_uid"] != trial["uid"]:
                    break
                number, row = next(reader)
            yield trial

    def studies() -> Iterator[dict]:
        while (ahead := reader.peek()) is not None:
            doc = _study_doc(study_of(*ahead), ahead[1], spec if compact else None)
            if not compact:
                _study_columns(doc, ahead[1])
            doc["trials"] = _lacking(trials_of(doc["name"]), path)
            yield doc
            for _ in doc["trials"]:  # what the import did not take
                pass

    return {"source": {"host": host or "unknown", "db": None}, "platforms": [], "studies": _lacking(studies(), path)}


class _Rows:
    """(row number, row) pairs with one of look-ahead."""

    def __init__(self, rows: Iterable[dict], start: int, path: Path):
        self._rows = enumerate(rows, start=start)
        self._ahead = None
        self._path = path

    def peek(self):
        if self._ahead is None:
            self._ahead = next(self._rows, None)
            if self._ahead is not None and not isinstance(self._ahead[1], dict):
                raise StoreError(f"{self._path} is not an iotune export")
        return self._ahead

    def __next__(self):
        found = self.peek()
        if found is None:
            raise StopIteration
        self._ahead = None
        return found


def _lacking(items: Iterator, path: Path) -> Iterator:
    """``items``, with a row that lacks a column (or holds the wrong kind of value) one StoreError line."""
    try:
        yield from items
    except (KeyError, TypeError, AttributeError) as exc:
        raise StoreError(f"{path} is not an iotune export: rows lack {exc}") from None


def _study_doc(name: str, row: dict, spec) -> dict:
    if spec is None:
        return {"name": name, "space_hash": row.get("space_hash") or "", "space_yaml": "", "settings": {},
                "description": "", "trials": []}
    return {"name": name, "space_hash": spec.space.hash, "space_yaml": spec.space.to_yaml(),
            "spec_yaml": spec.to_yaml(), "settings": {"source": "compact csv"},
            "description": spec.space.description or "", "trials": []}


STUDY_COLUMNS = {"study_space_yaml": "space_yaml", "study_spec_yaml": "spec_yaml", "study_settings": "settings",
                 "study_description": "description"}
"""The study's own columns of an export, filled on the study's first row only."""


def _study_columns(doc: dict, row: dict) -> None:
    """Take the study's space, spec, settings and description from the row that carries them."""
    for column, key in STUDY_COLUMNS.items():
        value = row.get(column)
        if value is None or doc.get(key):
            continue
        if key == "settings":
            try:
                value = json.loads(value) if isinstance(value, str) else value
            except ValueError:
                raise StoreError(f"{column} of study {doc['name']!r} is not JSON") from None
        doc[key] = value


def _trial_doc(row: dict, number: int, spec, path: Path) -> dict:
    info = {k: row.get(k) for k in ("hostname", "fs_type", "mpi_version", "iotune_version") if row.get(k) is not None}
    fp = queries.fingerprint(info) if info else None
    config = {k[4:]: v for k, v in row.items() if k.startswith("cfg.")}
    if spec is None:
        config_key, workload_key, state = row["config_key"], row.get("workload_key") or "", row["state"]
    else:
        try:
            made = spec.space.configuration(config)
        except SpaceError as exc:
            raise StoreError(f"{path}: row {number}: not a configuration of spec {spec.name!r}: "
                             f"{str(exc).splitlines()[0]}") from None
        config, config_key, workload_key, state = made.to_dict(), made.key, made.workload_key, "COMPLETE"
    return {
        "_row": number,
        "uid": row["trial_uid"],
        "config_key": config_key,
        "workload_key": workload_key,
        "config": config,
        "repeat": row["repeat"],
        "state": state,
        "error": row.get("error"),
        "started_at": row.get("started_at"),
        "runner": row.get("runner"),
        "read_cache_mode": row.get("read_cache_mode"),
        "hints_in_effect": {k[5:]: str(v) for k, v in row.items() if k.startswith("hint.") and v is not None},
        "platform": fp,
        "_platform": info,
        "measurements": [],
    }
