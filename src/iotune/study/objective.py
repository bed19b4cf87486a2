"""What a sampler minimises, computed from a configuration's stored repeats.

- ``time``: I/O seconds per run (:func:`iotune.records.io_seconds`);
- ``bandwidth``: seconds per MiB moved, the inverse of MiB/s, so that lower is
  better like the others and means are taken of the quantity that adds up;
- ``cost``: seconds x the configuration's price per second (instances and
  devices, paper 000 Eq. 2 and paper 002 Sec. III-B; :mod:`iotune.recommend.cost`).

A configuration's outcome is the mean over its COMPLETE repeats; FAILED when
every repeat failed, INVALID when it could not be run.
"""

from __future__ import annotations

from iotune.records import io_bytes, io_seconds
from iotune.samplers import Outcome
from iotune.units import MIB

OBJECTIVES = ("time", "bandwidth", "cost")
UNITS = {"time": "s", "bandwidth": "s/MiB", "cost": "currency units"}


class Objective:
    """Turns trial records into one value per run; ``cost_model`` prices runs for ``cost``."""

    def __init__(self, name: str = "time", cost_model=None, compute_instances: int | None = None):
        from iotune.errors import IotuneError

        if name not in OBJECTIVES:
            raise IotuneError(f"objective must be one of {', '.join(OBJECTIVES)}, got {name!r}")
        if name == "cost" and cost_model is None:
            from iotune.recommend.cost import CostModel

            cost_model = CostModel.from_yaml()
        self.name = name
        self.cost_model = cost_model
        self.compute_instances = compute_instances

    def run_value(self, trial) -> float | None:
        """The objective of one COMPLETE trial record, or None when it has no measured time."""
        seconds = io_seconds(trial.phases)
        if seconds <= 0:
            return None
        if self.name == "time":
            return seconds
        if self.name == "bandwidth":
            moved = io_bytes(trial.phases)
            return seconds / (moved / MIB) if moved > 0 else None
        return self.cost_model.cost(seconds, trial.config, self.compute_instances)

    def outcome(self, trials) -> Outcome:
        """The outcome of one configuration from its trial records (any states)."""
        states = {t.state for t in trials}
        values = [self.run_value(t) for t in trials if t.state == "COMPLETE" and t.phases]
        values = [v for v in values if v is not None]
        if values:
            return Outcome.of(values)
        if "INVALID" in states:
            return Outcome("INVALID")
        return Outcome("FAILED")
