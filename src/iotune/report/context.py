"""A study read once from the store for every section of a report: its record, spec, space and trials."""

from __future__ import annotations

from dataclasses import dataclass, field

from iotune.learn.dataset import is_default
from iotune.records import io_seconds
from iotune.study import Study


@dataclass
class StudyData:
    """What the report's sections read: ``trials`` in every state, ``platforms`` by id (their info dicts)."""

    store: object
    record: object
    spec: object
    trials: list
    platforms: dict[int, dict] = field(default_factory=dict)
    memo: dict = field(default_factory=dict)
    """Results one section computes and another reuses (held-out predictions by predictor)."""

    @classmethod
    def load(cls, store, name: str) -> StudyData:
        """The study ``name`` of ``store`` (StudyError naming the known studies when there is none)."""
        study = Study.open(store, name)
        trials = store.trials(study=study.id)
        return cls(store, study.record, study.spec, trials, store.platforms(t.platform_id for t in trials))

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def space(self):
        return self.spec.space

    @property
    def settings(self) -> dict:
        return self.record.settings or {}

    @property
    def measured(self) -> list:
        """COMPLETE trials with a positive I/O time."""
        return [t for t in self.trials if t.state == "COMPLETE" and t.phases and io_seconds(t.phases) > 0]

    def is_default(self, config: dict) -> bool:
        """True when every active system parameter is at its declared default (the default configuration)."""
        return is_default(self.space, config)
