"""A Study: a name, its campaign spec and space, and the store that holds its trials.

Commands open a study and use its spec; nothing re-reads the spec file.  A
study created by this iotune keeps its whole spec (``spec_yaml``); one made by
an older iotune keeps its space and settings, from which the spec is rebuilt.
A study refuses to continue with a spec that would measure something else
(another space, benchmark or storage); campaign settings (repeats, sampler,
budget) may change from one run to the next.
"""

from __future__ import annotations

from iotune.errors import IotuneError
from iotune.space.configuration import digest
from iotune.spec import CampaignSpec
from iotune.store.records import StudyRecord


class StudyError(IotuneError, ValueError):
    """A study does not exist, exists already, or cannot be continued with this spec."""


def measurement_identity(spec: CampaignSpec) -> str:
    """What makes two specs measure the same thing: space, benchmark and storage (not campaign settings)."""
    return digest({"space": spec.space.to_dict(), "benchmark": spec.benchmark, "storage": spec.storage})


class Study:
    """An open study: ``record`` (the store's row), ``spec`` (its campaign spec) and ``store``."""

    def __init__(self, store, record: StudyRecord, spec: CampaignSpec):
        self.store = store
        self.record = record
        self.spec = spec

    def __repr__(self) -> str:
        return f"Study({self.name!r}, {self.store!r})"

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def space(self):
        return self.spec.space

    @classmethod
    def create(cls, store, name: str, spec: CampaignSpec, settings: dict | None = None) -> Study:
        """A new, empty study of ``spec``; StoreError when the name is taken."""
        record = store.create_study(name, spec.space.to_yaml(), spec.space.hash,
                                    {**(settings or {}), "identity": measurement_identity(spec)},
                                    description=spec.space.description or "", spec_yaml=spec.to_yaml())
        return cls(store, record, spec)

    @classmethod
    def open(cls, store, name: str) -> Study:
        """The stored study ``name``; StudyError naming the known ones when there is none."""
        record = store.get_study(name)
        if record is None:
            known = ", ".join(s.name for s in store.list_studies()[:10]) or "none"
            raise StudyError(f"no study named {name!r} in {store.url} (studies: {known})")
        return cls(store, record, spec_of(record))

    @classmethod
    def open_or_create(cls, store, name: str, spec: CampaignSpec, resume: bool, settings: dict | None = None) -> Study:
        """The study to run ``spec`` in: a new one, or with ``resume`` the existing one if it measures the same."""
        record = store.get_study(name)
        if record is None:
            return cls.create(store, name, spec, settings)
        if not resume:
            raise StudyError(f"study {name!r} already exists; add --resume to continue it, or choose another "
                             "--study name")
        study = cls(store, record, spec_of(record))
        if measurement_identity(study.spec) != measurement_identity(spec):
            what = [part for part, same in (("space", study.spec.space == spec.space),
                                            ("benchmark", study.spec.benchmark == spec.benchmark),
                                            ("storage", study.spec.storage == spec.storage)) if not same]
            raise StudyError(f"study {name!r} was measured with another spec ({' and '.join(what) or 'spec'} "
                             "differ); use another --study name")
        return cls(store, record, spec)

    def trials(self, state: str | None = None):
        return self.store.trials(study=self.id, state=state)


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
