"""Replay: trials looked up in a table of recorded measurements instead of measured, a stand-in for the storage.

A :class:`ReplayRunner` measures nothing.  It finds the trial's benchmark run
(and, for a spec that varies storage, the storage configuration) in a table
recorded earlier on real storage, sleeps for the recorded I/O time (times
``scale``) as a stand-in for the trial's duration, and returns the recorded
phases.  It exists to rehearse what does not depend on the storage: a
campaign on a cluster (Slurm job arrays, the shared store, pre-emption), a
sampler's choices, parallel tuning; its numbers are the table's, never new
measurements.  Each trial records ``extra["replay"]`` (the table and the
recorded trial) so it cannot be mistaken for a measurement.

The table is iotune's flat CSV export (``iotune export FILE.csv``: one row per
trial and phase, with the columns ``trial_uid``, ``repeat``, ``phase``,
``bytes``, ``seconds``, ``open_seconds``, ``transfer_seconds``,
``close_seconds``, ``ops`` and ``cfg.<parameter>`` for each parameter), for
example ``data/ground_truth/testbed_ground_truth.csv``.  Every repeat of a
configuration replays the same recorded repeat, the one with the median I/O
time, so that what a replayed campaign proposes depends on nothing but the
table (same seed, same table: same proposals).
"""

from __future__ import annotations

import csv
import io
import json
import math
import time
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

from iotune.bounded import InputError, read_bounded
from iotune.errors import IotuneError, SpaceError
from iotune.records import BenchmarkSpec, Measurement, PhaseResult
from iotune.runners.base import RunnerKind, RunnerOptions

if TYPE_CHECKING:
    from iotune.spec.storage import StorageConfig

PHASE_COLUMNS = ("trial_uid", "repeat", "phase", "bytes", "seconds", "open_seconds", "transfer_seconds",
                 "close_seconds", "ops")
MAX_TABLE_BYTES = 256 * 2**20


class ReplayError(IotuneError, ValueError):
    """A replay table that cannot be read or does not fit the spec."""


def _key(data: dict) -> str:
    return json.dumps(data, sort_keys=True, default=str)


def _number(row: dict, column: str, kind, source: str):
    text = (row[column] or "").strip()
    if kind is int and len(text) > 20:
        raise ReplayError(f"{source}: column {column!r} must be a whole number >= 0, got {text[:30]!r}...")
    try:
        return kind(text) if text else None
    except (TypeError, ValueError):
        raise ReplayError(f"{source}: column {column!r} must be a number, got {row[column]!r}") from None


def _phases(group: list[dict], source: str) -> list[PhaseResult]:
    """The recorded phases of one trial, checked as an imported trial's are (names, bytes, times > 0, each once)."""
    rows = [{"phase": row["phase"], **{column: _number(row, column, kind, source) for column, kind in
                                       (("bytes", int), ("seconds", float), ("open_seconds", float),
                                        ("transfer_seconds", float), ("close_seconds", float), ("ops", int))}}
            for row in group]
    from iotune.store import import_checks

    try:
        return import_checks.phases(rows, source)
    except import_checks.BadRecord as error:
        raise ReplayError(str(error)) from None


class ReplayTable:
    """Recorded trials of ``spec``'s configurations, by storage configuration and benchmark run."""

    def __init__(self, spec, path: str | Path):
        self.path = Path(path)
        self.spec = spec
        self._trials: dict[tuple[str, str], tuple[str, list[PhaseResult]]] = {}
        self.skipped = 0
        self._load()

    def __len__(self) -> int:
        return len(self._trials)

    def _load(self) -> None:
        rows = self._rows()
        space = self.spec.space
        wanted = [*PHASE_COLUMNS, *(f"cfg.{p.name}" for p in space.parameters)]
        missing = [c for c in wanted if rows and c not in rows[0]]
        if not rows or missing:
            raise ReplayError(f"replay table {self.path} is empty or lacks the column(s) {', '.join(missing)}; "
                              "it must be iotune's flat CSV export of a study of this spec's space")
        by_trial: dict[str, list[dict]] = defaultdict(list)
        for row in rows:
            by_trial[row["trial_uid"]].append(row)
        candidates: dict[tuple[str, str], list[tuple[float, str, list[PhaseResult]]]] = defaultdict(list)
        for uid, group in by_trial.items():
            source = f"{self.path.name}, trial {uid}"
            try:
                configuration = space.configuration({p.name: group[0][f"cfg.{p.name}"] or None
                                                     for p in space.parameters})
                key = self.key(configuration)
            except SpaceError:
                self.skipped += 1  # a configuration this spec cannot run: never asked for
                continue
            phases = _phases(group, source)
            candidates[key].append((sum(p.seconds for p in phases), uid, phases))
        for key, recorded in candidates.items():
            recorded.sort(key=lambda item: (item[0], item[1]))
            _, uid, phases = recorded[(len(recorded) - 1) // 2]
            self._trials[key] = (uid, phases)
        if not self._trials:
            raise ReplayError(f"replay table {self.path} holds no configuration of this spec's space")

    def _rows(self) -> list[dict]:
        """The table's rows, every one complete (a table cut mid-row is refused, not read short)."""
        try:
            data = read_bounded(self.path, MAX_TABLE_BYTES, "replay table")
            text = data.decode("utf-8")
            reader = csv.DictReader(io.StringIO(text, newline=""))
            rows = list(reader)
        except InputError as error:
            raise ReplayError(str(error)) from None
        except UnicodeDecodeError as error:
            raise ReplayError(f"replay table {self.path} is not UTF-8 text (byte {error.start}); it must be "
                              "iotune's flat CSV export") from None
        except csv.Error as error:
            raise ReplayError(f"replay table {self.path} is not a readable CSV file ({error})") from None
        for number, row in enumerate(rows, start=1):
            if None in row or None in row.values():
                raise ReplayError(f"replay table {self.path}, row {number}: {'more' if None in row else 'fewer'} "
                                  "fields than the header names (a table cut short, or not iotune's flat CSV export)")
        if text and not text.endswith("\n"):
            raise ReplayError(f"replay table {self.path} does not end with a line break: it was cut short")
        return rows

    def key(self, configuration) -> tuple[str, str]:
        """(storage configuration, benchmark run) of a configuration, as the table is indexed."""
        from iotune.spec.mapping import benchmark_spec
        from iotune.spec.storage import storage_config

        spec = self.spec
        config = storage_config(spec.space, configuration, spec.storage) if spec.uses_testbed else None
        storage = _key(config.to_dict()) if config is not None else ""
        return storage, _key(benchmark_spec(spec.space, configuration, spec.benchmark).to_dict())

    def lookup(self, storage: str, benchmark: BenchmarkSpec) -> tuple[str, list[PhaseResult]] | None:
        """(recorded trial uid, its phases) for a storage key and a benchmark run, or None."""
        found = self._trials.get((storage, _key(benchmark.to_dict())))
        if found is None:
            return None
        uid, phases = found
        return uid, [PhaseResult(**vars(p)) for p in phases]


class ReplayRunner:
    """A Runner that looks a trial up in a :class:`ReplayTable` and sleeps for its recorded I/O time x ``scale``.

    A stand-in for the storage (and the benchmark), not a measurement: see the module's docstring.
    ``storage`` is the key of the storage configuration its trials run on ("" when the spec varies none).
    """

    name = "replay"

    def __init__(self, table: ReplayTable, storage: str = "", scale: float = 1.0, timeout: float = 600.0):
        if not (isinstance(scale, (int, float)) and math.isfinite(scale) and scale >= 0):
            raise ReplayError(f"the replay's time scale must be a number >= 0, got {scale!r}")
        self.table, self.storage, self.scale, self.timeout = table, storage, float(scale), timeout
        self.calls = 0

    def run(self, spec: BenchmarkSpec, scratch: Path) -> Measurement:
        self.calls += 1
        found = self.table.lookup(self.storage, spec)
        if found is None:
            return Measurement.failed(f"the replay table {self.table.path.name} has no trial of this configuration",
                                      hints_requested=dict(spec.hints))
        uid, phases = found
        seconds = sum(p.seconds for p in phases) * self.scale
        if seconds > self.timeout:  # as a measured trial that runs past --timeout: stopped there, FAILED
            time.sleep(self.timeout)
            return Measurement.failed(f"the replayed trial takes {seconds:.6g} s, more than the --timeout of "
                                      f"{self.timeout:g} s", hints_requested=dict(spec.hints))
        time.sleep(seconds)
        measurement = Measurement("COMPLETE", phases, hints_requested=dict(spec.hints),
                                  hints_in_effect=dict(spec.hints), read_cache_mode="none", runner=self.name,
                                  command=f"replay of {self.table.path.name}", wall_seconds=seconds)
        measurement.extra["replay"] = {"table": self.table.path.name, "trial_uid": uid, "scale": self.scale}
        return measurement

    def close(self) -> None:
        pass


class _ReplaySession:
    def __init__(self, runner: ReplayRunner, scratch: Path):
        self.runner, self.scratch = runner, scratch

    def close(self) -> list[str]:
        return []


class ReplayStorage:
    """A storage provider (as :class:`iotune.testbed.TestbedProvider`) that builds nothing: each storage
    configuration gets a :class:`ReplayRunner` keyed by it.  A stand-in for the storage."""

    def __init__(self, table: ReplayTable, scratch: Path, scale: float = 1.0, timeout: float = 600.0):
        self.table, self.scratch, self.scale, self.timeout = table, Path(scratch), scale, timeout
        self.builds = 0

    def check(self) -> None:
        pass

    def open(self, config: StorageConfig) -> _ReplaySession:
        self.builds += 1
        return _ReplaySession(ReplayRunner(self.table, _key(config.to_dict()), self.scale, self.timeout),
                              self.scratch)


def _open(spec, options: RunnerOptions, scratch: Path):
    """The replay runner of ``spec`` and, when the spec varies storage, its stand-in for the testbeds."""
    table = ReplayTable(spec, options.argument)
    storage = ReplayStorage(table, scratch, options.replay_scale, options.timeout) if spec.uses_testbed else None
    return ReplayRunner(table, scale=options.replay_scale, timeout=options.timeout), storage


def _for_worker(spec, argument: str) -> str:
    table = Path(argument).absolute()
    ReplayTable(spec, table)  # a table that does not fit the spec is refused once, not in every worker
    return str(table)


KIND = RunnerKind("replay", "recorded trials looked up instead of measured: a stand-in for the storage, for "
                  "rehearsals", open=_open, argument="TABLE.csv", for_worker=_for_worker)
