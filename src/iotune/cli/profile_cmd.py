"""``iotune profile``: what an application does with I/O (paper 000, Sec. 2.2), in iotune's workload vocabulary."""

from __future__ import annotations

import sys

import typer

from iotune.cli.terminal import Terminal
from iotune.errors import IotuneError
from iotune.units import format_size

FORMATS = ("table", "json", "yaml")


def profile(
    source: str = typer.Argument(..., help="A Darshan log, a workload YAML file, or an IOR command line (quoted)."),
    fmt: str = typer.Option("table", "--format", "-f", help="table, json, or yaml (a workload file that "
                                                             "recommend, run and tune read with --workload)."),
) -> None:
    """Describe an application's I/O and the IOR run nearest to it (the workload iotune tunes for)."""
    import yaml

    from iotune.profile import load_workload
    from iotune.workload import SIZE_FIELDS

    if fmt not in FORMATS:
        raise IotuneError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    terminal = Terminal()
    workload = load_workload(source)
    for warning in workload.warnings:
        terminal.warn(warning)
    if fmt == "yaml":
        sys.stdout.write(yaml.safe_dump(workload.to_yaml_data(), sort_keys=False, allow_unicode=True))
        return
    if fmt == "json":
        terminal.emit([], [], "json", records={**workload.to_dict(),
                                               "benchmark": workload.to_benchmark_spec().to_dict()})
        return
    rows = []
    for name, value in workload.to_dict().items():
        if name in ("notes", "warnings"):
            continue
        if name in SIZE_FIELDS:
            value = f"{format_size(value)} ({value} B)"
        elif isinstance(value, list):
            value = ", ".join(value)
        rows.append([name, "" if value is None else value])
    rows += [["note", note] for note in workload.notes] + [["warning", w] for w in workload.warnings]
    terminal.emit(["field", "value"], rows, "table", title=f"workload of {workload.source}")
    terminal.info("the first eight fields are the benchmark run nearest to it; save them with --format yaml and "
                  "pass the file as --workload to recommend, run or tune")
