"""A measured table as the product sees a study: a Space, configurations, a prior of (Configuration, Outcome).

The replay's ``engine`` strategy drives :class:`iotune.samplers.TransferSampler` with these, as ``iotune tune``
does (``iotune.study.tune``: ``prior_outcomes``, ``price_of``, ``declared_best``), so the figures it reports
belong to the code path users run.

The Space has one workload parameter per workload feature of the table's spec and one system parameter per
configuration feature (derived ones included: scout's total vCPUs and RAM).  A categorical feature is a
categorical parameter (one-hot, as the table encodes it); an ordinal one an integer parameter of its level
index (encoded as the index, as the table does); a log2 feature (a size or count) an integer parameter with
``scale: log2`` (encoded as log2, as the table does) or, with ``counts="linear"``, without it (encoded as the
value: what a spec that declares counts as plain integers gets); a numeric feature (``replay_encodings``' linear
variant) likewise without it.  Its values are multiplied by a power of
two where needed to make them whole (scout's 22.5 GB of RAM); an empty cell (an inactive hint) is the level 1,
with the values doubled so that it sits one doubling below a value of 1, where the table puts it (missing =
-1).  The engine scales every column to [0, 1], so these shifts change nothing (but floating-point rounding:
a tie between two candidates may break the other way).
"""

from __future__ import annotations

import math
import re

import numpy as np

from iotune.samplers import Outcome
from iotune.space import Parameter, Space

EMPTY = "(empty)"


def _name(prefix: str, column: str) -> str:
    return prefix + re.sub(r"\W", "_", column)


def _parameter(feature, seen: list, prefix: str, role: str, counts: str):
    """(Parameter, value -> level) of one feature of the table, over the values ``seen`` in it."""
    name = _name(prefix, feature.column)
    if feature.kind == "categorical":
        levels = list(feature.levels) or sorted({str(v) for v in seen})
        encode = {v: (v or EMPTY) for v in levels}
        return Parameter(name=name, type="categorical", levels=tuple(encode.values()), role=role,
                         layer="application"), encode
    if feature.kind == "ordinal":
        encode = {v: i for i, v in enumerate(feature.levels)}
        return Parameter(name=name, type="integer", levels=tuple(encode.values()), role=role,
                         layer="application"), encode
    if feature.kind not in ("log2", "numeric"):
        raise ValueError(f"{feature.column}: no replay parameter for a {feature.kind} feature")
    numbers = sorted({float(v) for v in seen if v != ""})
    missing = any(v == "" for v in seen)
    factor = 2.0 if missing else 1.0
    while not all((x * factor).is_integer() for x in numbers) and factor < 1024:
        factor *= 2.0
    whole = {v: round(v * factor) if factor < 1024 else round(v * 1000 * (2 if missing else 1)) for v in numbers}
    if len(set(whole.values())) < len(numbers) or min(whole.values()) < 1 + missing:
        raise ValueError(f"{feature.column}: its values do not map to distinct whole numbers")
    encode = dict(whole)
    if missing:
        encode[""] = 1
    scale = {"scale": "log2"} if counts == "log2" and feature.kind == "log2" else {}
    return Parameter(name=name, type="integer", levels=tuple(sorted(set(encode.values()))), role=role,
                     layer="application", **scale), encode


class TableSpace:
    """The Space of ``table`` (read through ``spec``) and each (workload, configuration) cell's Configuration."""

    def __init__(self, table, spec, counts: str = "log2"):
        self.table = table
        parameters, self._workload, self._configuration = [], [], []
        for features, points, prefix, role, out in (
                (spec.workload, table.workload_points, "w_", "workload", self._workload),
                (spec.configuration, table.configuration_points, "c_", "system", self._configuration)):
            for feature in features:
                parameter, encode = _parameter(feature, [p[feature.column] for p in points], prefix, role, counts)
                parameters.append(parameter)
                out.append((parameter.name, feature.column, encode))
        self.space = Space(f"replay-{table.name}", parameters)
        self._cells: dict[tuple[int, int], object] = {}
        self.index: dict[str, int] = {}  # configuration key -> the table's configuration index

    def workload(self, w: int) -> dict:
        point = self.table.workload_points[w]
        return {name: encode[point[column]] for name, column, encode in self._workload}

    def configuration(self, w: int, c: int):
        cell = self._cells.get((w, c))
        if cell is None:
            point = self.table.configuration_points[c]
            values = self.workload(w) | {name: encode[point[column]] for name, column, encode in self._configuration}
            cell = self._cells[(w, c)] = self.space.configuration(values)
            self.index[cell.key] = c
        return cell

    def candidates(self, w: int) -> list:
        """The configurations the table measured for workload ``w`` (what the target can run)."""
        return [self.configuration(w, int(c)) for c in np.flatnonzero(self.table.available[w])]

    def prior(self, objective: str, target: int) -> list:
        """(Configuration, Outcome) of every other workload x configuration, as ``prior_outcomes`` builds them
        from a store: the values of its completed repeats, FAILED when none completed."""
        table, out = self.table, []
        for w in range(len(table.workloads)):
            if w == target:
                continue
            for c in np.flatnonzero(table.available[w]):
                runs = np.flatnonzero(table.present[w, c])
                values = [float(table.values[objective][w, c, r]) for r in runs if not table.failed[w, c, r]]
                out.append((self.configuration(w, int(c)), Outcome.of(values)))
        return out

    def price(self, price_of_rows):
        """The price as a function of a Configuration (what ``price_of`` gives the sampler), from a function of
        the table's configuration feature rows; None for None."""
        if price_of_rows is None:
            return None
        features = self.table.configuration_features
        return lambda configuration: float(price_of_rows(features[[self.index[configuration.key]]])[0])


def finite(value) -> bool:
    return value is not None and math.isfinite(value)
