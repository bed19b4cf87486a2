"""A study read once from the store for every section of a report: its record, spec, space and trials."""

from __future__ import annotations

from dataclasses import dataclass, field

from iotune.learn.dataset import is_default
from iotune.records import io_seconds
from iotune.study import Study


class ReadCache:
    """A store whose trial reads are kept: a report reads one study's trials several times over (its datasets,
    repeats and spreads each ask the store), and each read of a few thousand trials costs about half a second.

    Everything else goes to the store.  Only for the time of one report: trials added meanwhile are not seen.
    """

    def __init__(self, store):
        self._store = store
        self._trials: dict[tuple, list] = {}

    def trials(self, study=None, state=None, config_keys=None):
        if config_keys is not None:
            return self._store.trials(study=study, state=state, config_keys=config_keys)
        if (study, state) not in self._trials:
            if state is not None and (study, None) in self._trials:
                self._trials[(study, state)] = [t for t in self._trials[(study, None)] if t.state == state]
            else:
                self._trials[(study, state)] = self._store.trials(study=study, state=state)
        return list(self._trials[(study, state)])

    def __getattr__(self, name):
        return getattr(self._store, name)

    def __repr__(self) -> str:
        return f"ReadCache({self._store!r})"


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
        """The study ``name`` of ``store`` (StudyError naming the known studies when there is none).

        Sections read the store through a :class:`ReadCache`.
        """
        store = store if isinstance(store, ReadCache) else ReadCache(store)
        study = Study.open(store, name)
        trials = store.trials(study=study.name)
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
