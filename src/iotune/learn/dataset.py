"""Training rows from a study: one row per COMPLETE trial (every repeat is a row).

Targets (``TARGETS``), per trial:

- ``time``: I/O seconds, the sum of the phases' seconds (or one phase's with
  ``phase``), as in :mod:`iotune.analysis`; lower is better.
- ``bandwidth``: bytes moved / MiB / those seconds, in MiB/s; higher is better.
- ``cost``: seconds / 3600 x ``instances`` x ``price_per_hour`` (currency units
  per run; paper 000 Sec. 3 optimises cost as well as time); lower is better.
  With the defaults (1 instance at 1.0 per hour) it is time in hours.
- ``relative``: baseline time / time, paper 000 Algorithm 1: the baseline is
  the mean time of the workload's default configuration (every system
  parameter at its declared default, inactive ones excepted).  Rows of a
  workload whose default configuration was never measured are dropped and
  counted in ``Dataset.dropped``.  Higher is better.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from iotune.learn.errors import LearningError
from iotune.learn.model import TARGETS
from iotune.records import io_bytes, io_seconds
from iotune.space import Space
from iotune.stored import StoredStudy
from iotune.units import MIB


@dataclass(frozen=True)
class Dataset:
    """Encoded configurations ``X`` (rows x features), targets ``y`` and what each row came from.

    ``times`` are the rows' measured seconds whatever the target (regret is
    measured in time); ``groups`` their workload keys; ``config_keys`` and
    ``configs`` the configurations.  ``data_hash``: sha1 of X's and y's float64
    bytes and the space hash.  ``dropped``: COMPLETE trials left out (no
    baseline for ``relative``, or no phase named ``phase``).
    """

    study: str
    space: Space
    target: str
    categorical: str
    X: np.ndarray
    y: np.ndarray
    times: np.ndarray
    groups: np.ndarray
    config_keys: np.ndarray
    configs: list[dict]
    data_hash: str
    dropped: int = 0
    options: dict = field(default_factory=dict)

    @property
    def n_samples(self) -> int:
        return int(self.y.size)

    @property
    def n_workloads(self) -> int:
        return int(np.unique(self.groups).size)

    @property
    def lower_is_better(self) -> bool:
        return self.target not in ("bandwidth", "relative")

    @property
    def feature_names(self) -> tuple[str, ...]:
        return self.space.encoder(self.categorical).feature_names

    @classmethod
    def from_study(cls, study: StoredStudy, target: str = "time", phase: str | None = None,
                   categorical: str = "onehot", instances: int = 1, price_per_hour: float = 1.0) -> Dataset:
        """The COMPLETE trials of ``study`` as a dataset for ``target`` (see the module docstring).

        ``phase`` ("write", "read") restricts time and bandwidth to that phase.
        ``instances`` and ``price_per_hour`` only matter for ``cost``.
        LearningError when the study leaves no row.
        """
        if target not in TARGETS:
            raise LearningError(f"unknown target {target!r}; choose one of: {', '.join(TARGETS)}")
        if instances < 1 or price_per_hour <= 0:
            raise LearningError(f"cost needs instances >= 1 and price_per_hour > 0, got {instances}, {price_per_hour}")
        space = study.space
        rows = []
        dropped = 0
        for trial in study.trials(state="COMPLETE"):
            phases = [p for p in trial.phases if phase is None or p.phase == phase]
            seconds = io_seconds(phases)
            if not phases or seconds <= 0:
                dropped += 1
                continue
            rows.append((trial, seconds, io_bytes(phases)))
        if target == "relative":
            baselines = _baselines(space, rows)
            kept = [r for r in rows if r[0].workload_key in baselines]
            dropped += len(rows) - len(kept)
            rows = kept
        if not rows:
            where = f" with a phase {phase!r}" if phase else ""
            extra = " whose workload has a measured default configuration" if target == "relative" else ""
            raise LearningError(f"study {study.name!r} has no COMPLETE trials{where}{extra} to learn from")
        times = np.array([seconds for _, seconds, _ in rows], dtype=np.float64)
        if target == "time":
            y = times.copy()
        elif target == "bandwidth":
            y = np.array([nbytes / MIB for _, _, nbytes in rows]) / times
        elif target == "cost":
            y = times / 3600.0 * instances * price_per_hour
        else:
            y = np.array([baselines[t.workload_key] for t, _, _ in rows]) / times
        configs = [dict(t.config) for t, _, _ in rows]
        X = np.ascontiguousarray(space.encode(configs, categorical), dtype=np.float64)
        y = np.ascontiguousarray(y, dtype=np.float64)
        return cls(
            study=study.name,
            space=space,
            target=target,
            categorical=categorical,
            X=X,
            y=y,
            times=times,
            groups=np.array([t.workload_key for t, _, _ in rows]),
            config_keys=np.array([t.config_key for t, _, _ in rows]),
            configs=configs,
            data_hash=data_hash(X, y, space.hash),
            dropped=dropped,
            options={"phase": phase, "instances": instances, "price_per_hour": price_per_hour},
        )


def data_hash(X: np.ndarray, y: np.ndarray, space_hash: str) -> str:
    """sha1 (40 hex digits) of X's and y's float64 bytes (C order) and the space hash."""
    digest = hashlib.sha1()
    digest.update(np.ascontiguousarray(X, dtype=np.float64).tobytes())
    digest.update(np.ascontiguousarray(y, dtype=np.float64).tobytes())
    digest.update(space_hash.encode())
    return digest.hexdigest()


def is_default(space: Space, config: dict) -> bool:
    """True when every active system parameter of ``config`` is at its declared default."""
    return all(
        config.get(p.name) is None or config.get(p.name) == p.default for p in space.system_parameters
    )


def _baselines(space: Space, rows) -> dict[str, float]:
    """Mean time (seconds) of each workload's default configuration, over its repeats."""
    times: dict[str, list[float]] = {}
    for trial, seconds, _ in rows:
        if is_default(space, trial.config):
            times.setdefault(trial.workload_key, []).append(seconds)
    return {key: float(np.mean(values)) for key, values in times.items()}
