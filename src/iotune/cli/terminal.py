"""The one terminal object: messages and progress on stderr, data on stdout.

Set ``IOTUNE_PLAIN=1`` for plain, deterministic output (no colour, no live
progress bars): tests and pipes use it.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import sys
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from rich.progress import Progress

FORMATS = ("table", "json", "csv")


def plain() -> bool:
    return os.environ.get("IOTUNE_PLAIN", "") not in ("", "0") or not sys.stderr.isatty()


class Terminal:
    """Messages go to stderr so that ``--format json`` output on stdout stays clean."""

    def __init__(self) -> None:
        is_plain = plain()
        self.err = Console(stderr=True, no_color=is_plain, highlight=False, soft_wrap=is_plain)
        self.out = Console(no_color=is_plain, highlight=False, width=None if sys.stdout.isatty() else 160)
        self.is_plain = is_plain

    def info(self, message: str) -> None:
        self.err.print(message, markup=False)

    def success(self, message: str) -> None:
        self.err.print(message, style="green", markup=False)

    def warn(self, message: str) -> None:
        self.err.print(f"warning: {message}", style="yellow", markup=False)

    def error(self, message: str) -> None:
        self.err.print(f"error: {message}", style="bold red", markup=False)

    def emit(self, columns: Sequence[str], rows: Iterable[Sequence], fmt: str = "table", title: str | None = None,
             records: list[dict] | dict | None = None) -> None:
        """Print rows as a Rich table, JSON (a list of objects, or ``records`` when given) or CSV on stdout.

        Display headers (``"T exact (s)"``) become machine keys (``t_exact_s``) in JSON and CSV, NaN and
        infinities become null (JSON) or an empty cell (CSV), and booleans stay booleans (``yes``/``no`` in a
        table).
        """
        rows = [list(r) for r in rows]
        if fmt == "json":
            keys = [machine_key(c) for c in columns]
            data = records if records is not None else [dict(zip(keys, r, strict=True)) for r in rows]
            sys.stdout.write(json.dumps(json_safe(data), indent=2, default=str, allow_nan=False) + "\n")
        elif fmt == "csv":
            buffer = io.StringIO()
            writer = csv.writer(buffer, lineterminator="\n")
            writer.writerow([machine_key(c) for c in columns])
            writer.writerows([[csv_cell(v) for v in row] for row in rows])
            sys.stdout.write(buffer.getvalue())
        else:
            table = Table(title=title, title_justify="left")
            for column in columns:
                table.add_column(column, overflow="fold")  # a narrow terminal wraps a cell, never cuts it with "..."
            for row in rows:
                table.add_row(*(table_cell(v) for v in row))
            self.out.print(table)

    @contextmanager
    def progress(self, description: str, total: int | None):
        """A progress bar with ETA (a counter when ``total`` is unknown); in plain mode a line every tenth."""
        if self.is_plain:
            yield _PlainProgress(self, description, total)
            return
        from rich.progress import (  # a reading command shows no bar: loaded when one is shown
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        )
        with Progress(*columns, console=self.err, transient=False) as bar:
            task = bar.add_task(description, total=total, status="")
            yield _RichProgress(bar, task)


class _RichProgress:
    def __init__(self, bar: Progress, task) -> None:
        self.bar, self.task = bar, task

    def advance(self, status: str = "", steps: int = 1) -> None:
        self.bar.update(self.task, advance=steps, status=status)

    def set_total(self, total: int | None) -> None:
        self.bar.update(self.task, total=total)


class _PlainProgress:
    def __init__(self, terminal: Terminal, description: str, total: int | None) -> None:
        self.terminal, self.description, self.total, self.done = terminal, description, total, 0
        self.step = max(1, (total or 10) // 10)

    def set_total(self, total: int | None) -> None:
        if total != self.total:
            self.total, self.step = total, max(1, (total or 10) // 10)

    def advance(self, status: str = "", steps: int = 1) -> None:
        before, self.done = self.done, self.done + steps
        if self.done // self.step > before // self.step or self.done == self.total:
            of = f"/{self.total}" if self.total else ""
            self.terminal.info(f"{self.description}: {self.done}{of} {status}".rstrip())


_UNITS = (("%", " pct "), ("MiB/s", " mib_s "), ("MB/s", " mb_s "), ("GiB", " gib "), ("/", " per "))


def machine_key(header: str) -> str:
    """A display header as a snake_case key with its unit in the name: ``"T exact (s)"`` -> ``t_exact_s``,
    ``"cost (AGBs)"`` -> ``cost_agbs``, ``"mape %"`` -> ``mape_pct``, ``"bandwidth MiB/s"`` -> ``bandwidth_mib_s``."""
    text = header
    for unit, word in _UNITS:
        text = text.replace(unit, word)
    text = re.sub(r"[^0-9a-zA-Z]+", "_", text).strip("_").lower()
    return text or "value"


def json_safe(value):
    """``value`` with every NaN or infinite float replaced by None (JSON has no NaN), recursively."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def csv_cell(value):
    """A plain CSV value: empty for None/NaN, JSON for a mapping or list (never a Python repr)."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(json_safe(value), sort_keys=True, default=str)
    return value


def table_cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def check_format(fmt: str) -> str:
    from iotune.errors import IotuneError

    if fmt not in FORMATS:
        raise IotuneError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    return fmt
