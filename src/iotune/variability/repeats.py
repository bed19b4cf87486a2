"""A study's repeated measurements, grouped by configuration (paper 003, Section 2.1: 40 runs each).

Every COMPLETE trial is one run; its time is the sum of its phases' seconds,
as in :mod:`iotune.analysis`.  Runs keep the order of their repeat index, so
"the first n runs" means the first n measured.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iotune.records import io_seconds
from iotune.space import Space
from iotune.stored import StoredStudy
from iotune.variability.errors import VariabilityError


@dataclass(frozen=True)
class Repeats:
    """The runs of a study, one entry per measured configuration.

    ``times[i]``: seconds of each run of ``configs[i]`` (float64 array), in
    repeat order; ``config_keys[i]`` its key.  ``failed``: FAILED trials seen.
    """

    study: str
    space: Space
    configs: list[dict]
    config_keys: list[str]
    times: list[np.ndarray]
    failed: int = 0

    def __len__(self) -> int:
        return len(self.configs)

    @property
    def counts(self) -> np.ndarray:
        """Runs per configuration."""
        return np.array([t.size for t in self.times], dtype=np.int64)

    def with_at_least(self, runs: int) -> Repeats:
        """Only the configurations measured at least ``runs`` times."""
        keep = [i for i, t in enumerate(self.times) if t.size >= runs]
        return Repeats(self.study, self.space, [self.configs[i] for i in keep],
                       [self.config_keys[i] for i in keep], [self.times[i] for i in keep], self.failed)

    @classmethod
    def from_study(cls, study: StoredStudy) -> Repeats:
        """Group ``study``'s COMPLETE trials by configuration; VariabilityError if it has none."""
        groups: dict[str, tuple[dict, list[tuple[int, float]]]] = {}
        failed = 0
        for trial in study.trials():
            if trial.state == "FAILED":
                failed += 1
            if trial.state != "COMPLETE" or not trial.phases:
                continue
            seconds = io_seconds(trial.phases)
            groups.setdefault(trial.config_key, (dict(trial.config), []))[1].append((trial.repeat, seconds))
        if not groups:
            raise VariabilityError(f"study {study.name!r} has no COMPLETE trials")
        keys = list(groups)
        times = [np.array([s for _, s in sorted(groups[k][1], key=lambda r: r[0])], dtype=np.float64) for k in keys]
        return cls(study.name, study.space, [groups[k][0] for k in keys], keys, times, failed)

    def require_repeats(self, runs: int = 2) -> Repeats:
        """The configurations with >= ``runs`` runs; VariabilityError when none has (a spread needs 2)."""
        kept = self.with_at_least(runs)
        if not len(kept):
            raise VariabilityError(
                f"study {self.study!r}: no configuration has >= {runs} repeats (most has {int(self.counts.max())}); "
                f"measure each configuration at least {runs} times (`iotune bench --repeats {runs}`)"
            )
        return kept
