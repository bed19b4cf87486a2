"""A study read once from the store for every section of a report: its record, spec, space and trials."""

from __future__ import annotations

from dataclasses import dataclass, field

from iotune.learn.dataset import is_default
from iotune.records import io_seconds
from iotune.report.fits import FitCache
from iotune.stored import StoredStudy


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
    """What the report's sections read: the ``study`` (read through a :class:`ReadCache`), its ``trials`` in every
    state, ``platforms`` by id (their info dicts)."""

    study: StoredStudy
    trials: list
    platforms: dict[int, dict] = field(default_factory=dict)
    memo: dict = field(default_factory=dict)
    """Results one section computes and another reuses (held-out predictions by predictor)."""
    fits: FitCache | None = None
    """Held-out predictions kept between reports (:mod:`iotune.report.fits`); None: fitted every time."""

    @classmethod
    def load(cls, study: StoredStudy, fits: FitCache | None = None) -> StudyData:
        """The report's view of ``study``: sections read its store through a :class:`ReadCache`."""
        if not isinstance(study.store, ReadCache):
            study = study.with_store(ReadCache(study.store))
        trials = study.trials()
        return cls(study, trials, study.store.platforms(t.platform_id for t in trials), fits=fits)

    @property
    def store(self):
        return self.study.store

    @property
    def record(self):
        return self.study.record

    @property
    def spec(self):
        return self.study.spec

    @property
    def name(self) -> str:
        return self.study.name

    @property
    def space(self):
        return self.study.space

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
