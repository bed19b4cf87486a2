"""Measurement tables: workloads x configurations x repeats, read from a CSV through a small description.

A ``TableSpec`` says which columns describe the workload, which the
configuration, which hold the objectives, how rows group into trials (a trial
of the testbed ground truth is a write row and a read row), and which trials
failed.  ``load_table`` turns the CSV into a ``MeasuredTable``: numeric feature
rows for workloads and configurations (``Feature`` kinds: categorical one-hot,
ordinal index, log2 of a size or count, plain number, encoded by
:func:`iotune.space.encoding.encode_levels`, as a space's parameters are) and,
per objective, an array of repeats.  Adding a table is one ``TableSpec``.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from iotune.space.encoding import FEATURE_KINDS as KINDS
from iotune.space.encoding import column_names, encode_levels
from iotune.transfer.errors import TransferError

TRUE = {"true", "1", "yes"}


@dataclass(frozen=True)
class Feature:
    """A column turned into numbers: ``categorical`` (one-hot, ``levels`` fixes the order, default sorted;
    an empty cell is a level of its own), ``ordinal`` (index in ``levels``, required), ``log2`` (log2 of a
    positive number: sizes, counts) or ``numeric`` (the number).  ``missing`` is the encoded value of an
    empty cell of a ``log2`` or ``numeric`` column (a parameter inactive under a ``when:`` rule); None
    makes an empty cell an error."""

    column: str
    kind: str = "categorical"
    levels: tuple = ()
    missing: float | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise TransferError(f"feature {self.column!r}: kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.kind == "ordinal" and not self.levels:
            raise TransferError(f"feature {self.column!r}: an ordinal feature needs its levels in order")
        object.__setattr__(self, "levels", tuple(str(v) for v in self.levels))


@dataclass(frozen=True)
class TableSpec:
    """How to read one measurement table.

    ``objectives`` maps an objective name to the column holding it in a trial
    record (lower is better, positive).  Rows sharing the ``trial`` column are
    one trial; ``summed`` columns are added over its rows (the write and read
    phases of one trial), the others come from its first row.  ``derive`` may
    add columns to each trial record (a cost from a time and a price, workload
    features parsed from a name).  A trial fails when its ``failed`` column is
    true or an objective is empty.  ``label`` names a workload for reports.
    """

    name: str
    path: Path
    workload: tuple[Feature, ...]
    configuration: tuple[Feature, ...]
    objectives: Mapping[str, str]
    trial: str | None = None
    summed: tuple[str, ...] = ()
    failed: str | None = None
    derive: Callable[[dict], dict] | None = None
    label: str | None = None
    source: str = ""


@dataclass
class MeasuredTable:
    """Every repeat of every (workload, configuration) cell of a table.

    ``values[objective]`` has shape (workloads, configurations, repeats), NaN
    where a repeat is missing or failed; ``failed`` and ``present`` have the
    same shape.  Feature matrices are float rows in the spec's feature order;
    ``workload_points`` and ``configuration_points`` hold each row's values as
    read (column -> value: a number for a ``log2`` or ``numeric`` feature, else
    the text, an empty cell as ``""``).
    """

    name: str
    workloads: list[str]
    configurations: list[str]
    workload_features: np.ndarray
    configuration_features: np.ndarray
    configuration_points: list[dict]
    values: dict[str, np.ndarray]
    failed: np.ndarray
    present: np.ndarray
    feature_names: dict[str, list[str]] = field(default_factory=dict)
    workload_points: list[dict] = field(default_factory=list)

    @property
    def objectives(self) -> list[str]:
        return list(self.values)

    @property
    def available(self) -> np.ndarray:
        """(workloads, configurations): the cell was measured at least once."""
        return np.any(self.present, axis=2)

    @property
    def failed_cells(self) -> np.ndarray:
        """(workloads, configurations): some repeat of the cell failed, so it can never be the optimum."""
        return (self.failed & self.present).any(axis=2)

    def truth(self, objective: str) -> np.ndarray:
        """Mean over repeats per cell; +inf for a failed cell, NaN for a cell never measured."""
        values = self.values[objective]
        counts = np.sum(~np.isnan(values), axis=2)
        mean = np.where(counts > 0, np.nansum(values, axis=2) / np.maximum(counts, 1), np.nan)
        mean[self.failed_cells] = math.inf
        mean[~self.available] = np.nan
        return mean

    def measure(self, objective: str, workload: int, configuration: int, rng: np.random.Generator) -> float | None:
        """One repeat of the cell drawn at random: its value, or None when that repeat failed."""
        repeats = np.flatnonzero(self.present[workload, configuration])
        if repeats.size == 0:
            raise TransferError(f"{self.name}: configuration {self.configurations[configuration]} was never "
                                f"measured for workload {self.workloads[workload]}")
        r = repeats[rng.integers(repeats.size)]
        if self.failed[workload, configuration, r]:
            return None
        return float(self.values[objective][workload, configuration, r])


def _truthy(text) -> bool:
    return str(text).strip().lower() in TRUE


def _trials(spec: TableSpec) -> list[dict]:
    try:
        with open(spec.path, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as exc:
        raise TransferError(f"{spec.path}: cannot read the table ({exc.strerror})") from None
    if not rows:
        raise TransferError(f"{spec.path}: the table is empty")
    if spec.trial is None:
        trials = [dict(row) for row in rows]
    else:
        grouped: dict[str, dict] = {}
        for row in rows:
            key = row.get(spec.trial)
            if key is None:
                raise TransferError(f"{spec.path}: no column {spec.trial!r} to group trials by")
            if key not in grouped:
                grouped[key] = dict(row)
            else:
                for column in spec.summed:
                    grouped[key][column] = _add(grouped[key].get(column), row.get(column))
        trials = list(grouped.values())
    if spec.derive is not None:
        trials = [spec.derive(dict(trial)) for trial in trials]
    return trials


def _add(a, b):
    if a in (None, "") or b in (None, ""):
        return ""
    return str(float(a) + float(b))


def _number(text, where: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise TransferError(f"{where}: expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise TransferError(f"{where}: expected a finite number, got {text!r}")
    return value


def _columns(feature: Feature, seen: list[str], where: str) -> tuple[list[str], np.ndarray]:
    """Names of the numeric columns of ``feature`` and its values ``seen`` (one row each) encoded."""
    if feature.kind in ("categorical", "ordinal"):
        levels = list(feature.levels) or sorted(set(seen))
        unknown = sorted(set(seen) - set(levels))
        if unknown:
            raise TransferError(f"{where}: {feature.column} has value(s) {unknown} not among its levels {levels}")
        index = {v: i for i, v in enumerate(levels)}
        rows = encode_levels(feature.kind, levels)[[index[v] for v in seen]]
        return column_names(feature.column, feature.kind, levels), rows.reshape(len(seen), -1)
    fill = feature.missing
    values = [v for v in dict.fromkeys(seen) if not (v == "" and fill is not None)]
    numbers = [_number(v, f"{where}: {feature.column}") for v in values]
    if feature.kind == "log2":
        for value, number in zip(values, numbers, strict=True):
            if number <= 0:
                raise TransferError(f"{where}: {feature.column} must be positive for a log2 feature, got {value!r}")
    encoded = dict(zip(values, encode_levels(feature.kind, numbers)[:, 0], strict=True))
    column = [float(fill) if v == "" and fill is not None else float(encoded[v]) for v in seen]
    return column_names(feature.column, feature.kind), np.array(column, dtype=float).reshape(len(seen), 1)


def _encode(features: tuple[Feature, ...], keys: list[tuple], where: str) -> tuple[np.ndarray, list[str]]:
    names, columns = [], []
    for j, feature in enumerate(features):
        feature_names, column = _columns(feature, [key[j] for key in keys], where)
        names += feature_names
        columns.append(column)
    return (np.hstack(columns) if columns else np.zeros((len(keys), 0))), names


def _point(features: tuple[Feature, ...], key: tuple) -> dict:
    point = {}
    for feature, value in zip(features, key, strict=True):
        numeric = feature.kind in ("log2", "numeric") and value != ""
        point[feature.column] = float(value) if numeric else value
    return point


def load_table(spec: TableSpec) -> MeasuredTable:
    """Read ``spec``'s CSV into a MeasuredTable; TransferError (one line) on a bad file or value."""
    trials = _trials(spec)
    where = str(spec.path)
    needed = [f.column for f in spec.workload + spec.configuration] + list(spec.objectives.values())
    missing = sorted({c for c in needed if c not in trials[0]})
    if missing:
        raise TransferError(f"{where}: missing column(s) {missing}")
    workload_keys: dict[tuple, int] = {}
    configuration_keys: dict[tuple, int] = {}
    labels: dict[int, str] = {}
    cells: dict[tuple[int, int], list[dict]] = {}
    for trial in trials:
        w_key = tuple(str(trial[f.column]) for f in spec.workload)
        c_key = tuple(str(trial[f.column]) for f in spec.configuration)
        w = workload_keys.setdefault(w_key, len(workload_keys))
        c = configuration_keys.setdefault(c_key, len(configuration_keys))
        labels.setdefault(w, str(trial[spec.label]) if spec.label else "/".join(w_key))
        cells.setdefault((w, c), []).append(trial)
    # Sorted configurations, so a table's order does not depend on its row order.
    c_sorted = sorted(configuration_keys)
    c_order = {configuration_keys[k]: i for i, k in enumerate(c_sorted)}
    w_sorted = sorted(workload_keys)
    w_order = {workload_keys[k]: i for i, k in enumerate(w_sorted)}
    repeats = max(len(v) for v in cells.values())
    shape = (len(w_sorted), len(c_sorted), repeats)
    present = np.zeros(shape, dtype=bool)
    failed = np.zeros(shape, dtype=bool)
    values = {name: np.full(shape, np.nan) for name in spec.objectives}
    for (w, c), group in cells.items():
        i, j = w_order[w], c_order[c]
        for r, trial in enumerate(group):
            present[i, j, r] = True
            bad = spec.failed is not None and _truthy(trial.get(spec.failed, ""))
            numbers = {}
            for name, column in spec.objectives.items():
                text = trial.get(column)
                if text in (None, ""):
                    bad = True
                    continue
                number = _number(text, f"{where}: {column}")
                if number <= 0:
                    raise TransferError(f"{where}: {column} must be positive, got {text!r}")
                numbers[name] = number
            failed[i, j, r] = bad
            if not bad:
                for name, number in numbers.items():
                    values[name][i, j, r] = number
    w_features, w_names = _encode(spec.workload, w_sorted, where)
    c_features, c_names = _encode(spec.configuration, c_sorted, where)
    return MeasuredTable(
        name=spec.name,
        workloads=[labels[workload_keys[k]] for k in w_sorted],
        configurations=["/".join(k) for k in c_sorted],
        workload_features=w_features,
        configuration_features=c_features,
        configuration_points=[_point(spec.configuration, k) for k in c_sorted],
        values=values,
        failed=failed,
        present=present,
        feature_names={"workload": w_names, "configuration": c_names},
        workload_points=[_point(spec.workload, k) for k in w_sorted],
    )
