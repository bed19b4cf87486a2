"""A stored study: its record, campaign spec, space (parsed once) and trials; what every reader of a study takes.

``learn``, ``screening``, ``variability``, ``report``, ``apply`` and the
commands take a :class:`StoredStudy` rather than a store and a study name, so
the record is read once, the space is parsed once and a missing study is
refused once, with one message (:class:`StudyError`).  It sits just above the
store, below everything that reads a study; the campaign loop
(:mod:`iotune.study`) measures into one, and the library face
(:class:`iotune.Study`, :mod:`iotune.api`) wraps one.

A study created by this iotune keeps its whole spec (``spec_yaml``); one made
by an older iotune keeps its space and settings, from which the spec is
rebuilt.  A study refuses to continue with a spec that would measure something
else (another space, benchmark or storage); campaign settings (repeats,
sampler, budget) may change from one run to the next.
"""

from __future__ import annotations

from iotune.errors import IotuneError
from iotune.space.configuration import digest
from iotune.spec import CampaignSpec
from iotune.store.engine import masked
from iotune.store.records import StudyRecord


class StudyError(IotuneError, ValueError):
    """A study does not exist, exists already, or cannot be continued with this spec."""


def measurement_identity(spec: CampaignSpec) -> str:
    """What makes two specs measure the same thing: space, benchmark and storage (not campaign settings)."""
    return digest({"space": measured_space(spec.space), "benchmark": spec.benchmark, "storage": spec.storage})


def measured_space(space) -> dict:
    """The space's definition less how models encode it (an integer's ``scale``): a study stored before its
    spec declared ``scale: log2`` measured the same configurations and resumes with that spec."""
    data = space.to_dict()
    data["parameters"] = [{k: v for k, v in p.items() if k != "scale"} for p in data["parameters"]]
    return data


class StoredStudy:
    """A study of a store: ``record`` (its row), ``spec`` (its campaign spec, read when first used), ``space``
    and ``trials()``.

    ``store`` is any object with the store's reading methods (the report passes a cache of one).  Trials are read
    from the store at each call: a campaign adds them while the study is open.
    """

    def __init__(self, store, record: StudyRecord, spec: CampaignSpec | None = None):
        self.store = store
        self.record = record
        self._spec = spec
        self._space = spec.space if spec is not None else None

    def __repr__(self) -> str:
        return f"StoredStudy({self.name!r}, {self.store!r})"

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def settings(self) -> dict:
        return self.record.settings or {}

    @property
    def spec(self) -> CampaignSpec:
        """The campaign spec: the one the study was opened with, else the stored one (parsed on first use)."""
        if self._spec is None:
            self._spec = spec_of(self.record)
        return self._spec

    @property
    def space(self):
        """The parameter space: the spec's when the study was opened with one, else the stored space
        (``record.space``, parsed once)."""
        return self._space if self._space is not None else self.record.space

    def trials(self, state: str | None = None) -> list:
        """The study's trials (TrialRecords) in ``state`` (every state when None), as the store holds them now."""
        return self.store.trials(study=self.id, state=state)

    def with_store(self, store) -> StoredStudy:
        """The same study read through ``store`` (a cache of the same database, as the report's)."""
        same = type(self)(store, self.record, self._spec)
        same._space = self._space
        return same

    @classmethod
    def open(cls, store, name: str) -> StoredStudy:
        """The stored study ``name``; StudyError naming the known ones when there is none."""
        record = store.get_study(name)
        if record is None:
            known = ", ".join(s.name for s in store.list_studies()[:10]) or "none"
            raise StudyError(f"no study named {name!r} in {masked(store.url)} (studies: {known})")
        return cls(store, record)

    @classmethod
    def create(cls, store, name: str, spec: CampaignSpec, settings: dict | None = None) -> StoredStudy:
        """A new, empty study of ``spec``; StoreError when the name is taken."""
        record = store.create_study(name, spec.space.to_yaml(), spec.space.hash,
                                    {**(settings or {}), "identity": measurement_identity(spec)},
                                    description=spec.space.description or "", spec_yaml=spec.to_yaml())
        return cls(store, record, spec)

    @classmethod
    def open_or_create(cls, store, name: str, spec: CampaignSpec, resume: bool,
                       settings: dict | None = None) -> StoredStudy:
        """The study to run ``spec`` in: a new one, or with ``resume`` the existing one if it measures the same."""
        record = store.get_study(name)
        if record is None:
            return cls.create(store, name, spec, settings)
        if not resume:
            raise StudyError(f"study {name!r} already exists; add --resume to continue it, or choose another "
                             "--study name")
        stored = spec_of(record)
        if measurement_identity(stored) != measurement_identity(spec):
            what = [part for part, same in (("space", measured_space(stored.space) == measured_space(spec.space)),
                                            ("benchmark", stored.benchmark == spec.benchmark),
                                            ("storage", stored.storage == spec.storage)) if not same]
            raise StudyError(f"study {name!r} was measured with another spec ({' and '.join(what) or 'spec'} "
                             "differ); use another --study name")
        return cls(store, record, spec)


def spec_of(record: StudyRecord) -> CampaignSpec:
    """The campaign spec a stored study was made with (rebuilt from space and settings for older studies)."""
    source = f"study {record.name}"
    if record.spec_yaml:
        return CampaignSpec.from_text(record.spec_yaml, source=source)
    from iotune.yamlio import load_yaml

    data, _ = load_yaml(record.space_yaml, source)
    data = dict(data or {})
    settings = record.settings or {}
    benchmark = settings.get("benchmark")
    if benchmark:
        data["benchmark"] = benchmark
    campaign = {k: settings[k] for k in ("repeats", "seed", "shuffle") if k in settings}
    if settings.get("design") in ("full", "random"):
        campaign["sampler"] = settings["design"]
        if settings.get("samples"):
            campaign["budget"] = settings["samples"]
    data["campaign"] = campaign
    return CampaignSpec.from_data(data, source)
