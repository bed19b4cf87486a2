"""``iotune results --trials``: one row per trial with only the columns that vary or matter."""

from __future__ import annotations

from typing import TYPE_CHECKING

from iotune.records import io_bandwidth, io_bytes, io_seconds
from iotune.units import format_size

if TYPE_CHECKING:
    from iotune.space import Parameter

PHASE_ORDER = ("write", "read", "run")


def _value(value, parameter) -> object:
    if value is None:
        return None
    return format_size(value) if parameter is not None and parameter.type == "size" else value


def trial_table(trials, spaces: dict) -> tuple[list[str], list[list]]:
    """Columns and rows for ``trials`` (TrialRecords); ``spaces``: study name -> Space.

    Columns: the study (when several), each configuration parameter whose value differs between trials, repeat,
    state, then per phase its seconds and MiB/s (write and read apart; ``run`` for application runs), the wall
    seconds of application runs, and the error when a trial failed.  Constant parameters say nothing here
    (``iotune export FILE.csv`` has every stored column).
    """
    trials = list(trials)
    parameters: dict[str, Parameter] = {}
    for space in spaces.values():
        for parameter in space.parameters:
            parameters.setdefault(parameter.name, parameter)
    names = list(dict.fromkeys(name for trial in trials for name in trial.config))
    varying = [name for name in names if len({repr(t.config.get(name)) for t in trials}) > 1]
    phases = [p for p in PHASE_ORDER if any(ph.phase == p for t in trials for ph in t.phases)]
    phases += sorted({ph.phase for t in trials for ph in t.phases} - set(phases))
    several = len({t.study for t in trials}) > 1
    wall = any(t.runner == "command" for t in trials)
    failed = any(t.error for t in trials)
    columns = (["study"] if several else []) + varying + ["repeat", "state"]
    for phase in phases:
        columns += [f"{phase} s", f"{phase} MiB/s"]
    columns += (["wall s"] if wall else []) + (["error"] if failed else [])
    rows = []
    for trial in trials:
        row = ([trial.study] if several else []) + [_value(trial.config.get(n), parameters.get(n)) for n in varying]
        row += [trial.repeat, trial.state]
        for phase in phases:
            mine = [p for p in trial.phases if p.phase == phase]
            if not mine:
                row += [None, None]
                continue
            seconds = io_seconds(mine)
            row += [round(seconds, 6), round(io_bandwidth(mine), 3) if io_bytes(mine) else None]
        row += ([None if trial.wall_seconds is None else round(trial.wall_seconds, 3)] if wall else [])
        row += ([trial.error] if failed else [])
        rows.append(row)
    return columns, rows
