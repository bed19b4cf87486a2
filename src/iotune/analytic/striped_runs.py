"""Runs of striped writes as the placement model takes them: (workload, StripedWrite, seconds).

From the striping ground-truth table (``data/ground_truth/striping_ground_truth.csv``)
and from a stored study's COMPLETE trials: the layout is the one **in effect**
(read back from the file system), the bytes those of the write phase, and a file
per process splits them over ``processes`` files.
"""

from __future__ import annotations

from dataclasses import dataclass

from iotune.analytic.errors import ModelError
from iotune.analytic.striped_placement import StripedWrite

GROUND_TRUTH_COLUMNS = ("pattern", "processes", "eff_stripe_count", "eff_stripe_unit", "eff_object_size", "bytes",
                        "seconds")


@dataclass(frozen=True)
class StripedRun:
    """One measured write: its workload's name, what it wrote where, and its seconds."""

    workload: str
    write: StripedWrite
    seconds: float
    config: tuple = ()
    repeat: int | None = None


def _whole(name: str, value) -> int:
    try:
        number = int(str(value))
    except ValueError:
        raise ModelError(f"{name} must be a whole number, got {value!r}") from None
    if number < 1:
        raise ModelError(f"{name} must be >= 1, got {value!r}")
    return number


def striped_write(processes, file_per_process: bool, total_bytes, layout: dict, servers: int | None = None,
                  replicas: int | None = None) -> StripedWrite:
    """The write of ``total_bytes`` by ``processes`` ranks under ``layout`` (stripe_count, stripe_unit,
    object_size; a Lustre layout without object_size takes the stripe unit), on ``servers`` servers keeping
    ``replicas`` copies (None: the model's own)."""
    processes = _whole("processes", processes)
    total = _whole("bytes", total_bytes)
    files = processes if file_per_process else 1
    count = _whole("stripe_count", layout.get("stripe_count"))
    unit = _whole("stripe_unit", layout.get("stripe_unit"))
    size = _whole("object_size", layout.get("object_size", unit))
    return StripedWrite(files, -(-total // files), count, unit, size,
                        None if servers is None else _whole("servers", servers),
                        None if replicas is None else _whole("replicas", replicas))


def ground_truth_runs(rows) -> list[StripedRun]:
    """Runs of the striping ground-truth table (dict rows of its CSV); a file per process when the pattern
    starts with ``fpp``."""
    runs = []
    for number, row in enumerate(rows, start=2):
        missing = [c for c in GROUND_TRUTH_COLUMNS if not str(row.get(c) or "").strip()]
        if missing:
            raise ModelError(f"striping ground truth line {number}: no {', '.join(missing)}")
        layout = {"stripe_count": row["eff_stripe_count"], "stripe_unit": row["eff_stripe_unit"],
                  "object_size": row["eff_object_size"]}
        write = striped_write(row["processes"], row["pattern"].startswith("fpp"), row["bytes"], layout)
        try:
            seconds = float(row["seconds"])
        except ValueError:
            raise ModelError(f"striping ground truth line {number}: seconds {row['seconds']!r}") from None
        config = (row.get("romio_cb_write") or "", row.get("cb_nodes") or "")
        repeat = str(row.get("repeat") or "").strip()
        runs.append(StripedRun(f"{row['pattern']} p={row['processes']}", write, seconds, config,
                               int(repeat) if repeat.isdigit() else None))
    return runs
