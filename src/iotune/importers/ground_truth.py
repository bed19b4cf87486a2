"""The project's ground-truth tables (``data/ground_truth/``) as stored studies, one command each.

Two forms:

* **compact CSVs** (``compact.py``: trial_uid, phase, cfg.* columns), measured with
  the spec of the same name beside them (``hints_ground_truth.csv`` and
  ``hints_ground_truth.yaml``): :func:`spec_beside` finds that spec, and the
  ordinary import reads the rows with it;
* **the striping table** (``striping/compact.py``: one row per trial with the
  layout asked for and the one in effect): :func:`import_striping_table` stores
  each access pattern as the study of its spec in ``striping/PATTERN.yaml``
  beside the table (``striping-PATTERN``), every row a COMPLETE trial whose write
  phase, cb_nodes in effect and layout in effect are the row's.  Importing it
  again adds nothing: a trial is identified by its configuration and repeat.

Every value is checked before anything is stored (a negative time is an error,
not a winner); a bad row stops the import in one line and nothing of it is kept.
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from iotune.errors import StoreError
from iotune.records import Measurement, PhaseResult

STRIPING_COLUMNS = ("pattern", "processes", "stripe_count", "stripe_unit", "eff_stripe_count", "eff_stripe_unit",
                    "eff_object_size", "romio_cb_write", "cb_nodes", "eff_cb_nodes", "repeat", "bytes", "seconds")
"""The header ``data/ground_truth/striping/compact.py`` writes."""
MAX_TABLE_BYTES = 64 << 20
PATTERN = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
EXPORT_COLUMNS = {"study", "config_key", "state"}


def _header(path: Path) -> list[str]:
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            line = handle.readline(1 << 16)
    except (OSError, UnicodeDecodeError):
        return []
    return next(csv.reader([line]), []) if line else []


def is_striping_table(path: Path) -> bool:
    """Whether ``path`` is a CSV with the striping table's header."""
    return Path(path).suffix.lower() == ".csv" and tuple(_header(path)) == STRIPING_COLUMNS


def spec_beside(path: Path) -> Path | None:
    """The spec a compact CSV was measured with, when it lies beside it under the same name; else None."""
    path = Path(path)
    if path.suffix.lower() != ".csv":
        return None
    header = set(_header(path))
    if not header or EXPORT_COLUMNS <= header or "trial_uid" not in header:
        return None
    beside = path.with_suffix(".yaml")
    return beside if beside.is_file() else None


@dataclass
class TableImport:
    studies: list[str] = field(default_factory=list)
    added: int = 0
    duplicates: int = 0

    def summary(self) -> str:
        return (f"{len(self.studies)} studies ({', '.join(self.studies)}); {self.added} trials added, "
                f"{self.duplicates} already there")


def _rows(path: Path) -> list[dict]:
    size = path.stat().st_size
    if size > MAX_TABLE_BYTES:
        raise StoreError(f"{path} is {size} bytes, more than the {MAX_TABLE_BYTES} a striping table import reads")
    text = path.read_text(encoding="utf-8", errors="strict")
    return list(csv.DictReader(io.StringIO(text)))


def _whole(row: dict, name: str, number: int, minimum: int = 1, optional: bool = False) -> int | None:
    text = (row.get(name) or "").strip()
    if not text and optional:
        return None
    if not text.isdigit() or int(text) < minimum:
        raise StoreError(f"line {number}: {name} must be a whole number >= {minimum}, got {text!r}")
    return int(text)


def _seconds(row: dict, number: int) -> float:
    try:
        value = float(row.get("seconds") or "")
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise StoreError(f"line {number}: seconds must be a finite number > 0, got {row.get('seconds')!r}")
    return value


def _trial(spec, row: dict, number: int, source: str) -> tuple:
    from iotune.errors import SpaceError
    from iotune.spec.mapping import benchmark_spec

    values: dict = {"processes": _whole(row, "processes", number), "stripe_count": _whole(row, "stripe_count", number)}
    for name in ("stripe_unit", "cb_nodes"):
        if (value := _whole(row, name, number, optional=True)) is not None:
            values[name] = value
    if (cb := (row.get("romio_cb_write") or "").strip()):
        values["romio_cb_write"] = cb
    try:
        configuration = spec.space.configuration(values)
        benchmark = benchmark_spec(spec.space, configuration, spec.benchmark).to_dict()
    except SpaceError as error:
        raise StoreError(f"line {number}: not a configuration of spec {spec.name!r}: "
                               f"{str(error).splitlines()[0]}") from None
    in_effect = {name: str(_whole(row, f"eff_{name}", number))
                 for name in ("stripe_count", "stripe_unit", "object_size")}
    write = PhaseResult("write", int(_whole(row, "bytes", number) or 0), _seconds(row, number), None, None, None, None)
    hints = {}
    if (nodes := _whole(row, "eff_cb_nodes", number, optional=True)) is not None:
        hints["cb_nodes"] = str(nodes)
    measurement = Measurement("COMPLETE", [write], hints_in_effect=hints, runner="imported",
                              extra={"layout_requested": benchmark.get("layout") or {}, "layout_in_effect": in_effect,
                                     "source": f"{source}:{number}"})
    repeat = _whole(row, "repeat", number, minimum=0)
    return configuration, repeat, benchmark, measurement


def import_striping_table(store, path: Path, specs: Path | None = None) -> TableImport:
    """Store the striping table at ``path`` (see the module docstring); ``specs`` is the directory of the
    patterns' specs (default: ``striping/`` beside the table)."""
    from iotune.spec import load_spec

    path = Path(path)
    specs = Path(specs) if specs is not None else path.parent / "striping"
    rows = _rows(path)
    by_pattern: dict[str, list[tuple[int, dict]]] = {}
    for number, row in enumerate(rows, start=2):
        pattern = (row.get("pattern") or "").strip()
        if not PATTERN.fullmatch(pattern):
            raise StoreError(f"{path}: line {number}: pattern must be lower-case letters, digits and '-', "
                                   f"got {pattern!r}")
        by_pattern.setdefault(pattern, []).append((number, row))
    loaded = {}
    for pattern in by_pattern:
        spec_path = specs / f"{pattern}.yaml"
        if not spec_path.is_file():
            raise StoreError(f"{path}: no spec {spec_path} for pattern {pattern!r}: the striping table is "
                                   "read with the specs it was measured with (data/ground_truth/striping/)")
        loaded[pattern] = load_spec(spec_path)
    # every row checked before anything is stored
    prepared = {pattern: [_trial(loaded[pattern], row, number, path.name) for number, row in numbered]
                for pattern, numbered in by_pattern.items()}
    report = TableImport()
    for pattern, trials in prepared.items():
        spec = loaded[pattern]
        study = store.get_study(spec.name)
        if study is None:
            study = store.create_study(spec.name, spec.space.to_yaml(), spec.space.hash,
                                       {"source": "striping ground truth", "file": path.name},
                                       description=spec.space.description or "", spec_yaml=spec.to_yaml())
        elif study.space_hash != spec.space.hash:
            raise StoreError(f"study {spec.name!r} holds runs of another space than {spec_path.name}; import "
                                   "into another store")
        existing = set(store.trial_states(study.id))
        batch = []
        for configuration, repeat, benchmark, measurement in trials:
            if (configuration.key, repeat) in existing:
                report.duplicates += 1
                continue
            existing.add((configuration.key, repeat))
            batch.append((configuration.to_dict(), configuration.key, configuration.workload_key, repeat, None,
                          benchmark, measurement))
        store.add_trials(study.id, batch)
        report.added += len(batch)
        report.studies.append(spec.name)
    return report
