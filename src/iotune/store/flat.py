"""The flat form of a store: ``Store.rows()`` as CSV or Parquet, and such a file read back.

Importing flat rows regroups them into the JSON export's shape and loses what
the rows do not carry: the study's space YAML, settings and description; each
trial's command, requested hints, wall time, extra data, benchmark spec and
finish time; platform details other than hostname, file system type, MPI and
iotune versions.  CSV also loses value types: a configuration value that reads
as a number or True/False comes back as one, an empty cell as None.  Parquet
keeps the types.  In a file holding several studies, a parameter that is None
in every trial of a study is taken to belong to another study and left out of
that study's configurations.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from iotune.errors import StoreError
from iotune.store import queries

_INT_COLUMNS = {"repeat", "bytes", "ops", "verify_errors"}
_FLOAT_COLUMNS = {"seconds", "bandwidth_mib", "open_seconds", "transfer_seconds", "close_seconds"}
_NUMBER = re.compile(r"^-?\d+$")


def write_rows(path: Path, fmt: str, rows: list[dict]) -> None:
    """Flat rows as "csv" or "parquet"; the columns of an empty export are the base columns."""
    columns = list(rows[0]) if rows else list(queries.BASE_COLUMNS)
    if fmt == "csv":
        with open(path, "w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, fieldnames=columns)
            writer.writeheader()
            writer.writerows(rows)
    else:
        pa, pq = _pyarrow()
        arrays = [_arrow_column(pa, [row[name] for row in rows]) for name in columns]
        pq.write_table(pa.Table.from_arrays(arrays, names=columns), path)




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


def read_parquet(path: Path) -> list[dict]:
    """The rows of a Parquet export, with their types."""
    pa, pq = _pyarrow()
    try:
        return pq.read_table(path).to_pylist()
    except (pa.ArrowException, OSError) as exc:
        raise StoreError(f"{path} is not a readable Parquet file: {exc}") from None


def read_csv(data: bytes, path: Path) -> list[dict]:
    """The rows of a CSV export, with numbers and booleans read back; StoreError if it is not one."""
    try:
        reader = csv.DictReader(data.decode("utf-8").splitlines())
        if not reader.fieldnames or not {"study", "trial_uid", "config_key"} <= set(reader.fieldnames):
            raise StoreError(f"{path} is not an iotune export (JSON, or CSV/Parquet rows with a trial_uid column)")
        return [_parse_csv_row(row) for row in reader]
    except (UnicodeDecodeError, csv.Error) as exc:
        raise StoreError(f"{path} is not an iotune export: {exc}") from None


def _parse_csv_row(row: dict) -> dict:
    if None in row:
        raise StoreError(f"CSV row has more cells than the header: {row[None]!r}")
    out = {}
    for name, text in row.items():
        if text is None or text == "":
            out[name] = None
        elif name in _INT_COLUMNS:
            out[name] = int(text) if _NUMBER.match(text) else text
        elif name in _FLOAT_COLUMNS:
            out[name] = _float(text)
        elif name.startswith("cfg."):
            out[name] = _guess(text)
        else:
            out[name] = text
    return out


def _float(text: str):
    try:
        return float(text)
    except ValueError:
        return text


def _guess(text: str):
    if text in ("True", "False"):
        return text == "True"
    if _NUMBER.match(text):
        return int(text)
    value = _float(text)
    return value if isinstance(value, float) else text


def rows_document(rows: list[dict], path: Path) -> dict:
    """The flat rows regrouped into the JSON export's platforms, studies, trials and measurements."""
    host = next((r.get("hostname") for r in rows if r.get("hostname")), None) or "unknown"
    platform_docs: dict[str, dict] = {}
    study_docs: dict[str, dict] = {}
    trial_docs: dict[tuple[str, str], dict] = {}
    cfg_used: dict[str, set] = {}
    try:
        for row in rows:
            study_name = row["study"]
            study = study_docs.setdefault(
                study_name,
                {
                    "name": study_name,
                    "space_hash": row.get("space_hash") or "",
                    "space_yaml": "",
                    "settings": {},
                    "description": "",
                    "trials": [],
                },
            )
            used = cfg_used.setdefault(study_name, set())
            used.update(k for k, v in row.items() if k.startswith("cfg.") and v is not None)
            key = (study_name, row["trial_uid"])
            trial = trial_docs.get(key)
            if trial is None:
                info = {
                    k: row.get(k)
                    for k in ("hostname", "fs_type", "mpi_version", "iotune_version")
                    if row.get(k) is not None
                }
                fp = None
                if info:
                    fp = queries.fingerprint(info)
                    platform_docs[fp] = {"fingerprint": fp, "info": info}
                trial = {
                    "uid": row["trial_uid"],
                    "config_key": row["config_key"],
                    "workload_key": row.get("workload_key") or "",
                    "config": {k[4:]: v for k, v in row.items() if k.startswith("cfg.")},
                    "repeat": row["repeat"],
                    "state": row["state"],
                    "error": row.get("error"),
                    "started_at": row.get("started_at"),
                    "runner": row.get("runner"),
                    "read_cache_mode": row.get("read_cache_mode"),
                    "hints_in_effect": {
                        k[5:]: str(v) for k, v in row.items() if k.startswith("hint.") and v is not None
                    },
                    "platform": fp,
                    "measurements": [],
                }
                trial_docs[key] = trial
                study["trials"].append(trial)
            if row.get("phase") is not None:
                fields = ("phase", "bytes", "seconds", *queries.PHASE_FIELDS)
                trial["measurements"].append({k: row.get(k) for k in fields})
    except (KeyError, TypeError, AttributeError) as exc:
        raise StoreError(f"{path} is not an iotune export: rows lack {exc}") from None
    for name, study in study_docs.items():
        if len(study_docs) == 1:
            break
        for trial in study["trials"]:
            trial["config"] = {k: v for k, v in trial["config"].items() if f"cfg.{k}" in cfg_used[name]}
    return {
        "source": {"host": host, "db": None},
        "platforms": list(platform_docs.values()),
        "studies": list(study_docs.values()),
    }
