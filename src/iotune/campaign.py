"""A measurement campaign: every planned (configuration, repeat) of a study, run once, stored at once.

The plan is a pure function of the space and the settings, so a campaign that
was killed recomputes the same plan on ``--resume`` and runs only what the store
does not hold as finished: COMPLETE and INVALID trials are never repeated, a
trial left RUNNING by a dead campaign is run again, FAILED ones only when asked.
Repeats are interleaved (every configuration once, then every configuration
again) so that slow drift of the machine spreads over all configurations
instead of biasing the ones measured last.

A space with storage parameters (``fs``, ``devices``, ``device_class``, ...;
see :mod:`iotune.spec.storage`) is measured on testbeds: the campaign groups
each round of repeats by storage configuration, builds one testbed per group
through its ``storage`` provider, runs the group's trials on it and tears it
down before the next group, and records the storage in every trial
(``Measurement.extra["storage"]``).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

from iotune.spec.mapping import benchmark_spec, check_runnable
from iotune.spec.storage import storage_config, storage_parameters
from iotune.records import Measurement, io_seconds
from iotune.errors import IotuneError, SpaceError
from iotune.space import Configuration, Space

DESIGNS = ("full", "random")
ADAPTIVE_DEFAULTS = {"rel_half_width": 0.05, "confidence": 0.95, "min_repeats": 3}


@dataclass
class CampaignSettings:
    """How a study samples its space and repeats its measurements."""

    repeats: int = 3
    design: str = "full"
    samples: int | None = None
    seed: int = 0
    shuffle: bool = True
    benchmark: dict = field(default_factory=dict)
    adaptive: dict | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.repeats, int) or self.repeats < 1:
            raise SpaceError(f"campaign: repeats must be a whole number >= 1, got {self.repeats!r}")
        if self.design not in DESIGNS:
            raise SpaceError(f"campaign: design must be one of {', '.join(DESIGNS)}, got {self.design!r}")
        if self.design == "random" and (not isinstance(self.samples, int) or self.samples < 1):
            raise SpaceError(f"campaign: design 'random' needs samples >= 1, got {self.samples!r}")
        if self.adaptive is not None:
            self.adaptive = _check_adaptive(self.adaptive)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict | None, source: str = "<spec>") -> CampaignSettings:
        data = dict(data or {})
        allowed = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise SpaceError(f"{source}: unknown campaign setting(s) {unknown}; allowed: {sorted(allowed)}")
        return cls(**data)


def _check_adaptive(adaptive) -> dict:
    """Adaptive repeats: stop a configuration once the t interval of its mean time is narrow enough."""
    if not isinstance(adaptive, dict):
        raise SpaceError(f"campaign: adaptive must be a mapping of {sorted(ADAPTIVE_DEFAULTS)}, got {adaptive!r}")
    unknown = sorted(set(adaptive) - set(ADAPTIVE_DEFAULTS))
    if unknown:
        raise SpaceError(f"campaign: unknown adaptive setting(s) {unknown}; allowed: {sorted(ADAPTIVE_DEFAULTS)}")
    values = {**ADAPTIVE_DEFAULTS, **adaptive}
    if not 0 < values["rel_half_width"] < 1:
        raise SpaceError(f"campaign: adaptive rel_half_width must lie in (0, 1), got {values['rel_half_width']!r}")
    if not 0 < values["confidence"] < 1:
        raise SpaceError(f"campaign: adaptive confidence must lie in (0, 1), got {values['confidence']!r}")
    if not isinstance(values["min_repeats"], int) or values["min_repeats"] < 2:
        raise SpaceError(f"campaign: adaptive min_repeats must be a whole number >= 2, got {values['min_repeats']!r}")
    return values


def load_campaign(path: str | Path) -> tuple[Space, CampaignSettings]:
    """Read a campaign file: a space spec with optional ``campaign:`` and ``benchmark:`` sections."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise SpaceError(f"cannot read spec {path}: {error.strerror or error}") from None
    return parse_campaign(text, source=str(path))


def parse_campaign(text: str, source: str = "<string>") -> tuple[Space, CampaignSettings]:
    space = Space.from_text(text, source=source)
    try:
        raw = yaml.safe_load(text) or {}
    except yaml.YAMLError:
        raw = {}
    settings = dict(raw.get("campaign") or {}) if isinstance(raw, dict) else {}
    if isinstance(raw, dict) and raw.get("benchmark"):
        if not isinstance(raw["benchmark"], dict):
            raise SpaceError(f"{source}: 'benchmark' must be a mapping of benchmark settings")
        settings["benchmark"] = _normalise_benchmark(raw["benchmark"], source)
    return space, CampaignSettings.from_dict(settings, source)


def _normalise_benchmark(values: dict, source: str) -> dict:
    from iotune.units import parse_size

    out = dict(values)
    for key in ("block_size", "transfer_size"):
        if key in out:
            out[key] = parse_size(out[key])
    return out


def plan(space: Space, settings: CampaignSettings) -> list[Configuration]:
    """The configurations a study measures, in a deterministic order."""
    if settings.design == "full":
        configurations = space.full_factorial()
    else:
        configurations = space.sample(settings.samples, seed=settings.seed)
    if settings.shuffle:
        configurations = list(configurations)
        random.Random(settings.seed).shuffle(configurations)
    return list(configurations)


def schedule(configurations: list[Configuration], repeats: int) -> list[tuple[Configuration, int]]:
    """Interleaved repeats: (c1, 0), (c2, 0), ..., (c1, 1), (c2, 1), ..."""
    return [(configuration, repeat) for repeat in range(repeats) for configuration in configurations]


@dataclass
class CampaignReport:
    planned: int = 0
    already_done: int = 0
    completed: int = 0
    failed: int = 0
    rerun_running: int = 0
    not_needed: int = 0
    saved_seconds: float = 0.0
    interrupted: bool = False
    seconds: float = 0.0
    testbeds_built: int = 0
    testbed_warnings: list[str] = field(default_factory=list)


TrialCallback = Callable[[Configuration, int, Measurement], None]


class Campaign:
    """Runs a study's plan through a runner into a store, committing every trial as it ends."""

    def __init__(self, store, study_name: str, space: Space, settings: CampaignSettings, runner, scratch: Path,
                 configurations: list[Configuration] | None = None, storage=None):
        """``configurations``, when given, replaces ``plan(space, settings)``: a designed list (e.g. a
        screening design) that must be deterministic and free of duplicates so that ``--resume`` finds it again.

        ``storage`` builds the testbeds of a space with storage parameters (e.g.
        :class:`iotune.testbed.TestbedProvider`); their trials then run on its runners
        and mountpoints, not on ``runner`` and ``scratch``.  A space with storage
        parameters and no (usable) provider is refused here, before anything runs."""
        self.store = store
        self.configurations = None if configurations is None else list(configurations)
        self.study_name = study_name
        self.space = space
        self.settings = settings
        self.runner = runner
        self.scratch = Path(scratch)
        self.storage = storage
        check_runnable(space)
        varied = [p.name for p in storage_parameters(space)]
        if varied and storage is None:
            raise SpaceError(f"parameter(s) {', '.join(varied)} set the storage, which only a testbed applies: "
                             "run iotune bench as root on a machine with loop devices and the blkio cgroup")
        if varied:
            storage.check()

    def planned(self) -> list[Configuration]:
        """The configurations this campaign measures: the given list, else the study's plan."""
        return self.configurations if self.configurations is not None else plan(self.space, self.settings)

    def open_study(self, resume: bool):
        study = self.store.get_study(self.study_name)
        if study is None:
            return self.store.create_study(self.study_name, self.space.to_yaml(), self.space.hash,
                                           self.settings.to_dict(), description=self.space.description or "")
        if not resume:
            raise IotuneError(f"study {self.study_name!r} already exists; add --resume to continue it, "
                              "or choose another --study name")
        if study.space_hash != self.space.hash:
            raise IotuneError(f"study {self.study_name!r} was made from a different space (hash {study.space_hash}, "
                              f"this spec {self.space.hash}); use another --study name")
        return study

    def pending(self, study, retry_failed: bool = False) -> tuple[list[tuple[Configuration, int]], int, int]:
        """What is left to run, how many planned trials are already finished, and how many were left RUNNING."""
        states = self.store.trial_states(study.id)
        finished = {"COMPLETE", "INVALID"} | (set() if retry_failed else {"FAILED"})
        todo, done, running = [], 0, 0
        for configuration, repeat in schedule(self.planned(), self.settings.repeats):
            state = states.get((configuration.key, repeat))
            if state in finished:
                done += 1
            else:
                running += state == "RUNNING"
                todo.append((configuration, repeat))
        return todo, done, running

    def run(self, resume: bool = False, retry_failed: bool = False, platform: dict | None = None,
            on_start: Callable[[int], None] | None = None, on_trial: TrialCallback | None = None) -> CampaignReport:
        started = time.monotonic()
        specs = {c.key: benchmark_spec(self.space, c, self.settings.benchmark)
                 for c in self.planned()}  # refuse a bad spec before the store is touched
        defaults = getattr(self.storage, "defaults", None)
        storages = {c.key: storage_config(self.space, c, defaults) for c in self.planned()}
        study = self.open_study(resume)
        todo, done, running = self.pending(study, retry_failed)
        # within a round of repeats, trials that need the same MPI world (process count, environment) run
        # together, so the runner restarts mpiexec once per group, not at every change of the shuffled order
        # (and, first, the same testbed: each storage configuration is built once per round)
        todo.sort(key=lambda item: (item[1], _storage_key(storages[item[0].key]), _world_key(specs[item[0].key])))
        report = CampaignReport(planned=len(todo) + done, already_done=done, rerun_running=running)
        platform_id = self.store.register_platform(platform) if platform else None
        precise_enough = self._adaptive_rule(study)
        walls: list[float] = []
        session, session_key = None, None
        if on_start:
            on_start(len(todo))
        try:
            for configuration, repeat in todo:
                if precise_enough(configuration, repeat):
                    report.not_needed += 1
                    continue
                spec = specs[configuration.key]
                runner, scratch, storage = self.runner, self.scratch, storages[configuration.key]
                if storage is not None:
                    if session is None or session_key != _storage_key(storage):
                        if session is not None:
                            session, closing = None, session
                            report.testbed_warnings += closing.close()
                        session, session_key = self.storage.open(storage), _storage_key(storage)
                        report.testbeds_built += 1
                        if platform:  # the caller's platform describes its scratch, not the testbed's file system
                            platform_id = self.store.register_platform({**platform, "fs_type": storage.fs})
                    runner, scratch = session.runner, session.scratch
                trial_id = self.store.start_trial(study.id, configuration.to_dict(), configuration.key,
                                                  configuration.workload_key, repeat, platform_id, spec.to_dict())
                measurement = runner.run(spec, scratch)
                if storage is not None:
                    measurement.extra["storage"] = storage.to_dict()
                self.store.finish_trial(trial_id, measurement)
                walls.append(measurement.wall_seconds)
                if measurement.status == "COMPLETE":
                    precise_enough.record(configuration, measurement)
                    report.completed += 1
                else:
                    report.failed += 1
                if on_trial:
                    on_trial(configuration, repeat, measurement)
        except KeyboardInterrupt:
            report.interrupted = True
        finally:
            if session is not None:
                report.testbed_warnings += session.close()
        if walls:
            report.saved_seconds = report.not_needed * sum(walls) / len(walls)
        report.seconds = time.monotonic() - started
        return report

    def _adaptive_rule(self, study) -> _AdaptiveRule:
        return _AdaptiveRule(self.settings, self.store.trials(study=study.name, state="COMPLETE")
                             if self.settings.adaptive else [])


def _storage_key(storage) -> str:
    return "" if storage is None else json.dumps(storage.to_dict(), sort_keys=True)


def _world_key(spec) -> tuple:
    return spec.processes, tuple(sorted(spec.env.items()))


class _AdaptiveRule:
    """Whether a repeat is still needed: never without ``adaptive`` settings; with them, not once the
    configuration's mean time is known to ``rel_half_width`` at ``confidence`` (t interval, paper 003 Sec. 6)."""

    def __init__(self, settings: CampaignSettings, stored_trials):
        self.settings = settings
        self.times: dict[str, list[float]] = {}
        self.planner = None
        if settings.adaptive:
            from iotune.variability.planner import RepeatPlanner

            adaptive = settings.adaptive
            self.planner = RepeatPlanner(adaptive["rel_half_width"], adaptive["confidence"], settings.repeats)
            for trial in sorted(stored_trials, key=lambda t: t.repeat):
                self.times.setdefault(trial.config_key, []).append(io_seconds(trial.phases))

    def __call__(self, configuration: Configuration, repeat: int) -> bool:
        if self.planner is None or repeat < self.settings.adaptive["min_repeats"]:
            return False
        samples = self.times.get(configuration.key, [])
        return len(samples) >= self.settings.adaptive["min_repeats"] and self.planner.should_stop(samples).stop

    def record(self, configuration: Configuration, measurement: Measurement) -> None:
        if self.planner is not None:
            self.times.setdefault(configuration.key, []).append(measurement.io_seconds)

