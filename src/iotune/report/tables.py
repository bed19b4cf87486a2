"""The plain data a report is made of: tables, figures (a kind of drawing and its table) and sections.

Everything here is computed before anything is drawn: a figure is the name of
a drawing (:mod:`iotune.report.figures`) and the table it draws, so its
numbers can be tested without matplotlib and written as CSV beside the
picture.  Column names carry their unit (``seconds``, ``MiB/s``, ``bytes``).
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Table:
    """Rows of values under named columns; ``title`` says what it is, ``note`` how to read it."""

    columns: tuple[str, ...]
    rows: list[tuple] = field(default_factory=list)
    title: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        self.columns = tuple(self.columns)
        self.rows = [tuple(row) for row in self.rows]
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f"table {self.title!r}: row {row!r} has {len(row)} values for "
                                 f"{len(self.columns)} columns")

    def __len__(self) -> int:
        return len(self.rows)

    def column(self, name: str) -> list:
        """The values of column ``name``, in row order."""
        index = self.columns.index(name)
        return [row[index] for row in self.rows]

    def records(self) -> list[dict[str, Any]]:
        """One dict per row."""
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]

    def to_csv(self) -> str:
        """CSV text with a header row; floats in full precision, None and NaN as empty fields."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(self.columns)
        for row in self.rows:
            writer.writerow(["" if _missing(v) else repr(v) if isinstance(v, float) else v for v in row])
        return buffer.getvalue()


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


@dataclass
class Figure:
    """One figure to draw: ``kind`` names a drawing function, ``data`` is what it draws.

    ``name`` is the file stem under ``--plots`` (unique within a report);
    ``options`` are the drawing's own settings (axis labels, which column is
    what); ``caption`` says in words what the figure shows.
    """

    name: str
    kind: str
    title: str
    data: Table
    caption: str = ""
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Section:
    """A part of the report: text, warnings, tables and figures; ``empty`` says why there is nothing to show."""

    key: str
    title: str
    paragraphs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    empty: str | None = None
    closing: list[str] = field(default_factory=list)
    """Paragraphs after the figures and tables, leading into ``blocks``."""
    blocks: list[tuple[str, str]] = field(default_factory=list)
    """Verbatim text to show as is (title, text): hints files, commands."""

    @classmethod
    def nothing(cls, key: str, title: str, why: str) -> Section:
        return cls(key, title, empty=why)


def label_of(space, config: dict, role: str | None = None) -> str:
    """``name=value`` pairs of a configuration's active parameters (of one ``role`` when given); ``-`` if none."""
    parts = [f"{p.name}={p.format(config[p.name])}" for p in space.parameters
             if (role is None or p.role == role) and config.get(p.name) is not None]
    return " ".join(parts) or "-"


def system_label(space, config: dict) -> str:
    """The system part of a configuration, or a sentence when no system parameter is active in it."""
    label = label_of(space, config, "system")
    return "(no system parameter applies)" if label == "-" else label


def varying(space, configs, role: str | None = None) -> list[str]:
    """Names of the parameters (of ``role``) whose value differs between ``configs``: what tells them apart."""
    configs = list(configs)
    return [p.name for p in space.parameters if (role is None or p.role == role)
            and len({repr(c.get(p.name)) for c in configs}) > 1]


def short_label(space, config: dict, names) -> str:
    """``name=value`` pairs of ``names`` only (the parameters that vary); ``-`` when none is active."""
    return " ".join(f"{n}={space.parameter(n).format(config[n])}" for n in names if config.get(n) is not None) or "-"


ONE_WORKLOAD = "(the one workload)"
"""The workload of a space without workload parameters."""


def workload_names(space, workloads) -> list[str]:
    """The workload parameters a label of one of ``workloads`` (configurations) shows: those that vary, all of
    them when there is one workload."""
    workloads = list(workloads)
    names = varying(space, workloads, "workload")
    return names if names else [p.name for p in space.workload_parameters]


def workload_label(space, config: dict, names) -> str:
    """The workload of ``config`` as ``name=value`` pairs of ``names`` (:func:`workload_names`), never "-"."""
    label = short_label(space, config, names)
    return ONE_WORKLOAD if label == "-" else label


def fmt_number(value: float | None, digits: int = 3) -> str:
    """A number with ``digits`` significant digits ("-" for None or NaN)."""
    if _missing(value):
        return "-"
    return f"{value:.{digits}g}"


def fmt_percent(fraction: float) -> str:
    """A fraction as a percentage: 3 significant digits, whole numbers from 100 % up (no exponent)."""
    value = 100 * fraction
    return f"{value:.0f}%" if abs(value) >= 100 else f"{value:.3g}%"


def fmt_seconds(seconds: float) -> str:
    """Seconds, with minutes or hours beside them when there are many."""
    text = f"{seconds:.0f} s" if seconds >= 100 else f"{seconds:.3g} s"
    if seconds >= 7200:
        return f"{text} ({seconds / 3600:.1f} h)"
    if seconds >= 120:
        return f"{text} ({seconds / 60:.0f} min)"
    return text
