"""The campaign spec: one strict reader for the whole file, one typed object every command uses.

A campaign file is a space (``name``, ``description``, ``parameters``,
``constraints``; :mod:`iotune.space`) with optional sections:

- ``benchmark:`` fields of the benchmark fixed for every trial (IOR's meaning;
  :class:`iotune.records.BenchmarkSpec`), including fixed ``hints`` and ``env``;
- ``campaign:`` how configurations are chosen and measured: ``sampler``
  (``full`` by default; see ``iotune bench --help``), ``budget`` (configurations
  to measure), ``repeats``, ``seed``, ``shuffle``, ``objective`` and sampler
  ``options``; ``adaptive:`` repeats until a mean is known well enough;
- ``screening:`` the ``levels: {parameter: [low, high]}`` a Plackett-Burman
  screening uses, and ``system_only``;
- ``storage:`` fields of the testbed fixed for every trial (``size_mib``,
  ``fs``, ``device_class``, ...; :class:`iotune.spec.storage.StorageConfig`).

Every key at every level is checked: an unknown one is refused with its line
and the closest known key.  ``design:``/``samples:`` are read as the older
names of ``sampler:``/``budget:``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from iotune.errors import SpaceError
from iotune.records import APIS, APIS_TEXT, DATA_PATTERNS, OPERATIONS
from iotune.space import Space
from iotune.space.configuration import digest
from iotune.space.reader import TOP_KEYS as SPACE_KEYS
from iotune.spec import fields as f
from iotune.spec.environment import check_environment
from iotune.spec.mapping import check_runnable
from iotune.spec.storage import CEPH_SERVERS, FILE_SYSTEMS, SCHEDULERS, storage_parameters
from iotune.yamlio import load_yaml, read_yaml_file, where

OBJECTIVES = ("time", "bandwidth", "cost")
SECTIONS = ("benchmark", "campaign", "screening", "storage")
TOP_KEYS = SPACE_KEYS + SECTIONS

BENCHMARK = f.Section("benchmark", [
    f.Field("api", f.choice(*APIS), doc=APIS_TEXT),
    f.Field("processes", f.integer(1, 1 << 20), doc="MPI processes"),
    f.Field("block_size", f.size, doc="bytes each process writes per segment"),
    f.Field("transfer_size", f.size, doc="bytes per I/O call"),
    f.Field("segment_count", f.integer(1, 1 << 30), doc="segments"),
    f.Field("file_per_process", f.boolean), f.Field("collective", f.boolean),
    f.Field("operation", f.choice(*OPERATIONS)), f.Field("fsync", f.boolean), f.Field("verify", f.boolean),
    f.Field("data_pattern", f.choice(*DATA_PATTERNS)),
    f.Field("hints", f.hint_map, doc="MPI-IO hints set for every trial"),
    f.Field("env", f.env_map, doc="environment variables set for every trial"),
    f.Field("layout", f.layout_map, doc="file layout set on every benchmark file (stripe_count, stripe_unit, ...)"),
    f.Field("hdf5", f.hdf5_map, doc="HDF5 settings of api HDF5 (datasets, chunked, alignment, ...)"),
])
ADAPTIVE = f.Section("adaptive", [
    f.Field("rel_half_width", f.number(0, 1, open_low=True, open_high=True), 0.05),
    f.Field("confidence", f.number(0, 1, open_low=True, open_high=True), 0.95),
    f.Field("min_repeats", f.integer(2, 10_000), 3),
])
CAMPAIGN = f.Section("campaign", [
    f.Field("repeats", f.integer(1, 10_000), 3, doc="repeats per configuration"),
    f.Field("sampler", f.text, doc="how configurations are chosen"),
    f.Field("design", f.choice("full", "random"), doc="older name of sampler"),
    f.Field("budget", f.integer(1, 10**9), doc="configurations to measure"),
    f.Field("samples", f.integer(1, 10**9), doc="older name of budget"),
    f.Field("seed", f.integer(0, 2**63 - 1), 0),
    f.Field("shuffle", f.boolean, True),
    f.Field("adaptive", f.mapping),
    f.Field("objective", f.choice(*OBJECTIVES), "time"),
    f.Field("options", f.mapping, doc="options of the sampler"),
])
SCREENING = f.Section("screening", [
    f.Field("levels", f.mapping, doc="parameter: [low, high]"),
    f.Field("system_only", f.boolean, False),
])
STORAGE = f.Section("storage", [
    f.Field("fs", f.choice(*FILE_SYSTEMS)), f.Field("devices", f.choice(*CEPH_SERVERS)),
    f.Field("raid0", f.boolean), f.Field("scheduler", f.choice(*SCHEDULERS)),
    f.Field("write_mbps", f.number(0, open_low=True)), f.Field("read_mbps", f.number(0, open_low=True)),
    f.Field("iops", f.integer(1)), f.Field("mount_options", f.text), f.Field("size_mib", f.integer(16, 1 << 22)),
    f.Field("device_class", f.text),
])


@dataclass(frozen=True)
class Adaptive:
    """Adaptive repeats: stop repeating a configuration once the interval of its (geometric) mean time is within
    ± ``rel_half_width`` of it at ``confidence`` (paper 003, Sec. 6, on log times as every answer states them),
    after ``min_repeats``."""

    rel_half_width: float = 0.05
    confidence: float = 0.95
    min_repeats: int = 3


@dataclass(frozen=True)
class CampaignSettings:
    """How a study chooses and repeats its measurements (the ``campaign:`` section)."""

    repeats: int = 3
    sampler: str = "full"
    budget: int | None = None
    seed: int = 0
    shuffle: bool = True
    adaptive: Adaptive | None = None
    objective: str = "time"
    options: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        data = asdict(self)
        if self.adaptive is None:
            data.pop("adaptive")
        return data


@dataclass(frozen=True)
class ScreeningSettings:
    """The ``screening:`` section: (low, high) per parameter, normalised by the space, and ``system_only``."""

    levels: dict = field(default_factory=dict)
    system_only: bool = False


@dataclass(frozen=True)
class CampaignSpec:
    """A whole campaign file, read once and checked as a whole.

    ``benchmark`` and ``storage`` hold only the fields the file fixes (normalised:
    sizes in bytes); ``campaign`` and ``screening`` are typed settings.
    """

    space: Space
    benchmark: dict = field(default_factory=dict)
    campaign: CampaignSettings = field(default_factory=CampaignSettings)
    screening: ScreeningSettings = field(default_factory=ScreeningSettings)
    storage: dict = field(default_factory=dict)
    source: str = field(default="<spec>", compare=False)

    @property
    def name(self) -> str:
        return self.space.name

    @classmethod
    def from_file(cls, path: str | Path) -> CampaignSpec:
        """Read a campaign file; every error is one line naming the file and line."""
        data, lines = read_yaml_file(path, "spec")
        return cls.from_data(data, str(path), lines)

    @classmethod
    def from_text(cls, text: str, source: str = "<string>") -> CampaignSpec:
        data, lines = load_yaml(text, source)
        return cls.from_data(data, source, lines)

    @classmethod
    def from_data(cls, data: Any, source: str = "<dict>", lines: Mapping[tuple, int] | None = None) -> CampaignSpec:
        """Build from parsed YAML data (the same keys as the file)."""
        lines = lines or {}
        if data is None:
            raise SpaceError(f"{source}:1: the spec is empty; it must be a mapping with keys {', '.join(TOP_KEYS)}")
        if not isinstance(data, Mapping):
            raise SpaceError(f"{where(source, lines, ())}: the spec must be a mapping with keys "
                             f"{', '.join(TOP_KEYS)}, got {type(data).__name__}")
        for key in data:
            if key not in TOP_KEYS:
                raise SpaceError(f"{where(source, lines, (key,))}: unknown key {key!r}{f.did_you_mean(key, TOP_KEYS)} "
                                 f"(keys of a campaign spec: {', '.join(TOP_KEYS)})")
        from iotune.space.reader import space_arguments

        space = Space(**space_arguments({k: v for k, v in data.items() if k in SPACE_KEYS}, source, lines))
        benchmark = _given(BENCHMARK.read(data.get("benchmark"), source, lines, ("benchmark",)))
        campaign = _campaign(data.get("campaign"), source, lines)
        screening = _screening(space, data.get("screening"), source, lines)
        storage = _given(STORAGE.read(data.get("storage"), source, lines, ("storage",)))
        spec = cls(space, benchmark, campaign, screening, storage, source)
        spec.check()
        return spec

    def check(self) -> None:
        """Refuse a spec that contradicts itself (a parameter also fixed in ``benchmark:``)."""
        clash = sorted(set(self.benchmark) & {p.name for p in self.space.parameters})
        if clash:
            raise SpaceError(f"{self.source}: {', '.join(clash)} is both a parameter and fixed in 'benchmark:'; "
                             "keep one")

    def check_runnable(self, allowed=None) -> None:
        """Refuse a spec whose parameters the built-in benchmark or the testbed cannot apply (before measuring),
        or that sets an environment variable neither known safe nor in ``allowed`` (default ``IOTUNE_ALLOW_ENV``)."""
        check_runnable(self.space, allowed)
        check_environment(self.benchmark.get("env") or {}, f"{self.source} (benchmark > env)", allowed)

    @property
    def uses_testbed(self) -> bool:
        """True when trials must run on testbeds: the space varies storage or the spec fixes a ``storage:``."""
        return bool(storage_parameters(self.space) or self.storage)

    def with_campaign(self, **changes: Any) -> CampaignSpec:
        """A copy with campaign settings changed (command-line overrides), checked like the file's."""
        values = {k: v for k, v in changes.items() if v is not None}
        if not values:
            return self
        data = {**self.campaign.to_dict(), **values}
        if isinstance(data.get("adaptive"), Adaptive):
            data["adaptive"] = asdict(data["adaptive"])
        return replace(self, campaign=_campaign(data, self.source, {}))

    def to_dict(self) -> dict:
        """Plain data that :meth:`from_data` turns back into an equal spec (sizes as ``4MiB``)."""
        data = self.space.to_dict()
        if self.benchmark:
            data["benchmark"] = _plain_sizes(self.benchmark)
        data["campaign"] = self.campaign.to_dict()
        if self.screening.levels or self.screening.system_only:
            data["screening"] = {
                "levels": {name: [self.space.parameter(name).format(v) if self.space.parameter(name).type == "size"
                                  else v for v in pair] for name, pair in self.screening.levels.items()},
                "system_only": self.screening.system_only}
        if self.storage:
            data["storage"] = dict(self.storage)
        return data

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False, allow_unicode=True)

    @property
    def hash(self) -> str:
        """Identity of the whole spec (space and sections): 16 hex digits."""
        return digest(self.to_dict())


def _given(values: dict) -> dict:
    return {k: v for k, v in values.items() if v is not None}


def _plain_sizes(values: dict) -> dict:
    from iotune.units import format_size

    return {k: format_size(v) if k in ("block_size", "transfer_size") else v for k, v in values.items()}


def _campaign(data: Any, source: str, lines: Mapping[tuple, int]) -> CampaignSettings:
    values = CAMPAIGN.read(data, source, lines, ("campaign",))
    for old, new in (("design", "sampler"), ("samples", "budget")):
        given = values.pop(old)
        if given is not None:
            if values[new] is not None and values[new] != given:
                raise SpaceError(f"{where(source, lines, ('campaign', old))}: campaign > {old} and {new} disagree; "
                                 f"{old} is the older name of {new}: keep {new}")
            values[new] = given
    values["sampler"] = values["sampler"] or "full"
    if values["sampler"] == "random" and values["budget"] is None:
        raise SpaceError(f"{where(source, lines, ('campaign',))}: sampler 'random' needs a budget "
                         "(how many configurations)")
    adaptive = values.pop("adaptive")
    if adaptive is not None:
        adaptive = Adaptive(**ADAPTIVE.read(adaptive, source, lines, ("campaign", "adaptive")))
    options = values.pop("options") or {}
    return CampaignSettings(**values, adaptive=adaptive, options=dict(options))


def _screening(space: Space, data: Any, source: str, lines: Mapping[tuple, int]) -> ScreeningSettings:
    values = SCREENING.read(data, source, lines, ("screening",))
    levels = {}
    names = [p.name for p in space.parameters]
    for name, pair in (values["levels"] or {}).items():
        path = ("screening", "levels", name)
        if name not in names:
            raise SpaceError(f"{where(source, lines, path)}: screening levels name unknown parameter {name!r}"
                             f"{f.did_you_mean(name, names)}")
        if isinstance(pair, (str, bytes)) or not isinstance(pair, list) or len(pair) != 2:
            raise SpaceError(f"{where(source, lines, path)}: screening levels of {name!r} must be [low, high], "
                             f"got {pair!r}")
        parameter = space.parameter(name)
        try:
            low, high = (parameter.normalise(value) for value in pair)
        except SpaceError as exc:
            raise SpaceError(f"{where(source, lines, path)}: screening levels: {exc}") from None
        if low == high:
            raise SpaceError(f"{where(source, lines, path)}: screening levels of {name!r}: low and high are both "
                             f"{pair[0]!r}")
        levels[name] = (low, high)
    return ScreeningSettings(levels, values["system_only"])


def load_spec(path: str | Path) -> CampaignSpec:
    """Read a campaign file (:meth:`CampaignSpec.from_file`)."""
    return CampaignSpec.from_file(path)


__all__ = ["OBJECTIVES", "Adaptive", "CampaignSettings", "CampaignSpec", "ScreeningSettings",
           "load_spec"]
