"""Which configuration for a workload, and how sure: the one answer that ``results``, ``recommend``, the
report, ``run`` and the demo give (issue 19, item 1).

**A measured workload.** The answer is the measured configuration with the lowest mean I/O time over its
repeats (what ``iotune results`` shows).  It is *tied* with every other measured configuration that the
runs cannot tell apart from it: the 95 % interval of their time ratio holds 1, with the noise of
:mod:`iotune.variability.confidence` (the workload's repeats pooled over its configurations, else the
study's other workloads' repeats, never the spread of a configuration's own two or three runs, which can
agree by chance) and widened for the best having been picked as the lowest of the measured ones (Sidak),
as ``iotune tune`` and the demo judge.  With no repeats anywhere the noise is unknown, and the answer says
that one run each cannot tell whether the best is ahead.  No model is asked.

**An unmeasured workload.** The tuner's transfer prediction (:class:`iotune.transfer.TransferTuner`, no
run of the target: the other workloads' runs weighted by how similar their workloads are, so a size or
integer value between two levels is interpolated) names the configuration, if it is trustworthy on this
store: held out one measured workload at a time, its picks must have been closer to each workload's
measured best than the default configuration (geometric mean of time / best time over the held-out
workloads; a model that predicts the mean cannot rank configurations, so it does no better than any fixed
choice such as the default).  Otherwise no configuration is recommended and the answer says to measure
the workload with ``iotune tune``.

**Hints in effect.** A trial stores the hints it asked for (from its configuration) and the hints in effect
(read back with ``MPI_File_get_info``).  A hint whose read-back value differs did not take effect as asked;
the hints to apply are the ones in effect, and configurations identical in effect are marked as such.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

from iotune.errors import IotuneError, SpaceError
from iotune.records import io_seconds
from iotune.spec.hdf5 import IN_EFFECT_PREFIX
from iotune.spec.mapping import asked_value, hints_of, read_back_key
from iotune.variability.confidence import (
    CONFIDENCE,
    Interval,
    Noise,
    noise_from,
    ratio_interval,
    spread_of_workloads,
    workload_spread,
)
from iotune.variability.estimate import Run, estimate, geometric_mean, load_note

MIN_HELD_OUT = 2
"""Measured workloads a transfer prediction must be judged on before it is trusted."""
MAX_CANDIDATES = 50_000


class DecisionError(IotuneError, ValueError):
    """No answer can be given: the workload has no valid configuration in the space."""


@dataclass
class Measured:
    """One measured configuration of a workload: its I/O times (seconds) and the hints that took effect.

    ``not_in_effect``: hint key -> (value asked, value read back) for each hint that did not take effect
    as asked; ``effective``: the configuration as it ran (those hints at their read-back values)."""

    config: dict
    key: str
    times: list[float]
    not_in_effect: dict[str, tuple[str, str]] = field(default_factory=dict)
    effective: dict = field(default_factory=dict)
    rounds: list[int | None] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.times)

    @property
    def mean(self) -> float:
        """The geometric mean of its times: the central value every answer states
        (:mod:`iotune.variability.estimate`)."""
        return geometric_mean(self.times)

    def runs(self) -> list[Run]:
        rounds = self.rounds if len(self.rounds) == len(self.times) else [None] * len(self.times)
        return [Run(self.key, t, r) for t, r in zip(self.times, rounds, strict=True)]

    @property
    def logs(self) -> list[float]:
        return [math.log(t) for t in self.times]


@dataclass
class Decision:
    """The answer for one workload (module docstring).

    ``basis``: "measured", "transfer" (predicted for an unmeasured workload) or "none" (nothing
    trustworthy: ``advice`` says what to run).  ``best``: the configuration (None with "none");
    ``best_time``: its mean measured I/O time, or the predicted one (seconds); ``tied``: the measured
    configurations the runs cannot tell apart from the best, best first (just the best when it is ahead);
    ``separated``: True (ahead of every other), False (tied) or None (the runs cannot say);
    ``same_in_effect``: configurations that ran exactly as the best did; ``apply_hints``: the hints to
    apply, as they took effect; ``ranked``: every measured configuration, fastest mean first.
    """

    workload: dict
    basis: str
    best: dict | None
    best_time: float | None = None
    runs: int = 0
    tied: list[dict] = field(default_factory=list)
    separated: bool | None = None
    default: dict | None = None
    default_time: float | None = None
    noise: str = ""
    not_in_effect: dict[str, tuple[str, str]] = field(default_factory=dict)
    same_in_effect: list[dict] = field(default_factory=list)
    apply_hints: dict[str, str] = field(default_factory=dict)
    ranked: list[Measured] = field(default_factory=list)
    message: str = ""
    advice: str = ""
    notes: list[str] = field(default_factory=list)
    gain_interval: Interval | None = None
    best_interval: Interval | None = None
    confirmed: bool = False

    @property
    def gain(self) -> float | None:
        """Default time / best time (above 1: the best is faster), when both are known: the measured gain of
        :func:`iotune.variability.estimate.estimate` (paired over a race's rounds when the workload was raced)."""
        if self.gain_interval is not None:
            return self.gain_interval.value
        if self.best_time and self.default_time:
            return self.default_time / self.best_time
        return None

    @property
    def recommends_default(self) -> bool:
        return self.best is not None and self.default is not None and _system(self.best) == _system(self.default)

    def to_dict(self) -> dict[str, Any]:
        return {"workload": self.workload, "basis": self.basis, "best": self.best, "best_time_s": self.best_time,
                "runs": self.runs, "tied": self.tied, "separated": self.separated, "default": self.default,
                "default_time_s": self.default_time, "gain_vs_default": self.gain, "noise": self.noise,
                "not_in_effect": {k: {"asked": a, "in_effect": r} for k, (a, r) in self.not_in_effect.items()},
                "same_in_effect": self.same_in_effect, "apply_hints": self.apply_hints, "message": self.message,
                "advice": self.advice, "notes": self.notes,
                "gain_interval_95": None if self.gain_interval is None else
                [self.gain_interval.low, self.gain_interval.high],
                "best_interval_95": None if self.best_interval is None else
                [self.best_interval.low, self.best_interval.high],
                "confirmed": self.confirmed}


def _system(config: dict) -> dict:
    return {k: v for k, v in config.items() if not k.startswith("_")}


# ------------------------------------------------------------------------------------------- measured


def measured_configurations(space, trials) -> dict[str, list[Measured]]:
    """Every COMPLETE configuration of ``trials`` grouped by workload key, with the hints that took effect."""
    groups: dict[str, dict[str, Measured]] = {}
    read_back: dict[str, dict] = {}
    for trial in trials:
        if trial.state != "COMPLETE" or not trial.phases:
            continue
        seconds = io_seconds(trial.phases)
        if not (seconds > 0 and math.isfinite(seconds)):
            continue
        found = groups.setdefault(trial.workload_key, {})
        if trial.config_key not in found:
            found[trial.config_key] = Measured(dict(trial.config), trial.config_key, [])
        found[trial.config_key].times.append(seconds)
        found[trial.config_key].rounds.append(getattr(trial, "race_round", None))
        load = ((getattr(trial, "extra", None) or {}).get("conditions") or {}).get("load_before")
        if isinstance(load, int | float) and not isinstance(load, bool):
            found[trial.config_key].loads.append(float(load))
        if trial.config_key not in read_back and getattr(trial, "hints_in_effect", None):
            read_back[trial.config_key] = trial.hints_in_effect
    out = {}
    for workload_key, found in groups.items():
        for measured in found.values():
            measured.not_in_effect, measured.effective = in_effect(space, measured.config,
                                                                   read_back.get(measured.key, {}))
        out[workload_key] = fastest_first(found.values())
    return out


def fastest_first(measured) -> list[Measured]:
    """Measured configurations by geometric mean time, fastest first (ties by key): the order every answer uses
    for unraced runs (:func:`iotune.variability.estimate.estimate`)."""
    return sorted(measured, key=lambda m: (m.mean, m.key))


def in_effect(space, config: dict, read_back: dict) -> tuple[dict[str, tuple[str, str]], dict]:
    """Hints and HDF5 settings of ``config`` whose read-back value differs from the one asked, and the
    configuration as it ran.

    A hint missing from the read-back is taken as unknown, not as ignored: a store may keep only part of it."""
    changed, effective = {}, dict(config)
    for parameter in space.system_parameters:
        key, value = read_back_key(parameter), config.get(parameter.name)
        if not key or value is None or key not in read_back:
            continue
        asked, ran = asked_value(parameter, value), str(read_back[key]).strip()
        if ran.lower() == asked.lower():
            continue
        changed[key] = (asked, ran)
        try:
            effective[parameter.name] = parameter.normalise(ran)
        except SpaceError:
            effective[parameter.name] = ran
    return changed, effective


def measured_noise(ranked: list[Measured], elsewhere: tuple[float, int] = (0.0, 0)) -> Noise | None:
    """The run-to-run noise of a workload's measured configurations (:func:`iotune.variability.confidence.
    estimate_noise`: their repeats pooled, with the other workloads' spread ``elsewhere`` from
    :func:`spread_elsewhere`); None when no configuration of the study ran twice: then the runs cannot say
    whether the best is ahead."""
    noise = noise_from([m.times for m in ranked], elsewhere)
    return None if noise.prior_only else noise


def spread_elsewhere(groups: list[list[Measured]]) -> tuple[float, int]:
    """(Spread, degrees of freedom) of other workloads' repeats, each ``groups`` entry one workload."""
    return spread_of_workloads(workload_spread(m.times for m in group) for group in groups)


def ratio_to_best(best: Measured, other: Measured, noise: Noise, comparisons: int,
                  confidence: float = CONFIDENCE) -> Interval:
    """``other``'s time over ``best``'s (geometric means) and its interval; ``best`` was picked as the lowest
    of ``comparisons`` configurations, so the interval is widened for that (Sidak).  The runs cannot tell
    ``other`` from ``best`` when it holds 1."""
    return ratio_interval(other.times, best.times, noise, confidence, comparisons)


def default_configuration(space, workload: dict) -> dict | None:
    """The default configuration of ``workload`` (every system parameter at its default), None if invalid."""
    try:
        return space.configuration(dict(workload)).to_dict()
    except SpaceError:
        return None


def tied_with_best(ranked: list[Measured], noise: Noise | None, confidence: float = CONFIDENCE) -> list[bool | None]:
    """For each of ``ranked[1:]`` (``ranked``: fastest mean first), whether its runs cannot tell it from the
    best's at ``confidence`` (:func:`ratio_to_best` holds 1); None for each when the noise is unknown."""
    if noise is None:
        return [None] * (len(ranked) - 1)
    return [ratio_to_best(ranked[0], m, noise, len(ranked), confidence).low <= 1.0 for m in ranked[1:]]


def decide_measured(space, workload: dict, ranked: list[Measured], study_groups: list[list[Measured]],
                    confidence: float = CONFIDENCE, elsewhere: tuple[float, int] | None = None) -> Decision:
    """The answer for a measured workload: ``ranked`` are its configurations, fastest mean first;
    ``study_groups`` the study's other workloads' (or their spread given as ``elsewhere``)."""
    default = default_configuration(space, workload)
    measured_default = next((m for m in ranked if default is not None and m.config == default), None)
    found = estimate([run for m in ranked for run in m.runs()],
                     baseline=measured_default.key if measured_default else None,
                     elsewhere=spread_elsewhere(study_groups) if elsewhere is None else elsewhere,
                     confidence=confidence)
    by_key = {m.key: m for m in ranked}
    ranked = [by_key[key] for key in found.ranked]
    best = ranked[0]
    noise = "unknown: no configuration of the study ran twice" if not found.known else found.noise.source
    if found.paired_noise is not None:
        noise += f"; paired over {found.rounds} race rounds: {found.paired_noise.source}"
    tied = [by_key[key].config for key in found.tied] if found.tied else [best.config]
    separated = found.separated
    same = [m.config for m in ranked[1:] if _system(m.effective) == _system(best.effective)]
    best_time = found.best_mean.value if found.best_mean is not None else best.mean
    decision = Decision(workload=dict(workload), basis="measured", best=best.config, best_time=best_time,
                        runs=found.best_mean.runs if found.best_mean is not None else best.n, tied=tied,
                        separated=separated, default=default,
                        default_time=measured_default.mean if measured_default else None, noise=noise,
                        not_in_effect=dict(best.not_in_effect), same_in_effect=same,
                        apply_hints=apply_hints(space, best.config, best.not_in_effect), ranked=ranked,
                        gain_interval=found.gain if measured_default is not None else None,
                        best_interval=found.best_mean, confirmed=found.confirmed)
    level = f"{confidence:.0%}"
    if len(ranked) == 1:
        decision.message = "the only configuration measured for this workload"
        decision.separated = None
    elif separated:
        decision.message = (f"fastest of {len(ranked)} measured configurations, ahead of every other beyond the "
                            f"run-to-run noise at {level}")
    elif separated is None and not found.known and not found.confirmed:
        decision.message = (f"fastest mean of {len(ranked)} measured configurations, but one run each and no "
                            "repeats in the store: the runs cannot say whether it is ahead")
    else:
        decision.message = (f"fastest mean of {len(ranked)} measured configurations, but the runs cannot tell it "
                            f"apart from {len(tied) - 1} other(s) at {level}: any of the {len(tied)} tied may be "
                            "the fastest, as far as these runs show")
    if best.not_in_effect:
        decision.notes.append(not_in_effect_text(best.not_in_effect))
    if measured_default is not None and measured_default is not best:
        note = load_note(best.loads, measured_default.loads, found.confirmed)
        if note:
            decision.notes.append(note)
    if same:
        decision.notes.append(f"{len(same)} other measured configuration(s) ran exactly as this one (hints not in "
                              "effect make them identical)")
    return decision


def not_in_effect_text(changed: dict[str, tuple[str, str]]) -> str:
    """``cb_nodes=2 ran as 1`` for each hint (or HDF5 setting) that did not take effect as asked."""
    hdf5 = any(key.startswith(IN_EFFECT_PREFIX) for key in changed)
    how = "read back with MPI_File_get_info" + (", HDF5 settings from the file written" if hdf5 else "")
    return "not in effect as asked: " + ", ".join(f"{k}={a} ran as {r}" for k, (a, r) in changed.items()) + \
        f" ({how}); the hints to apply are the ones in effect"


def apply_hints(space, config: dict, changed: dict[str, tuple[str, str]]) -> dict[str, str]:
    """The MPI-IO hints of ``config``, each at the value that took effect."""
    return {key: changed[key][1] if key in changed else value for key, value in hints_of(space, config).items()}


def effective_hints(space, trials, configuration) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """The hints of ``configuration`` as they took effect in its trials among ``trials`` (read back), else in the
    runs of the same system settings for another workload (an application's runs read nothing back; the
    benchmark's of the same hints did), and those that did not take effect as asked (key -> (asked, in
    effect))."""
    config = dict(configuration)
    key = space.configuration(config).key
    names = [p.name for p in space.system_parameters]
    read = [t for t in trials if t.state == "COMPLETE" and getattr(t, "hints_in_effect", None)]
    same_system = [t for t in read if all(t.config.get(n) == config.get(n) for n in names)]
    read_back: dict[str, str] = next((t.hints_in_effect for t in read if t.config_key == key),
                                     same_system[0].hints_in_effect if same_system else {})
    changed, _ = in_effect(space, config, read_back)
    return apply_hints(space, config, changed), changed


# ------------------------------------------------------------------------------------------ the entry points


def workload_of(space, values: dict) -> tuple[dict, dict[str, float]]:
    """``values`` as a full workload of the space's levels (missing ones at their defaults), and the size or
    integer values that are not levels (name -> value), which are answered by interpolation."""
    workload, between = {}, {}
    for parameter in space.workload_parameters:
        if parameter.name not in values or values[parameter.name] is None:
            workload[parameter.name] = parameter.default
            continue
        value = values[parameter.name]
        try:
            workload[parameter.name] = parameter.normalise(value)
        except SpaceError:
            number = _number(parameter, value)
            if number is None:
                raise
            between[parameter.name] = number
    return _nearest_valid(space, workload, between), between


def _nearest_valid(space, workload: dict, between: dict[str, float]) -> dict:
    """``workload`` with each parameter of ``between`` at the nearest level that makes a valid workload (the
    nearest one when none does): the levels whose configurations stand in for the value between them."""
    if not between:
        return workload
    orders = []
    for name, number in between.items():
        parameter = space.parameter(name)
        numeric = [level for level in parameter.levels if not isinstance(level, bool)]
        orders.append(sorted(numeric, key=lambda level: abs(_scale(parameter, level) - _scale(parameter, number))))
    for combo in itertools.islice(itertools.product(*orders), 256):
        candidate = {**workload, **dict(zip(between, combo, strict=True))}
        if default_configuration(space, candidate) is not None:
            return candidate
    return {**workload, **{name: order[0] for name, order in zip(between, orders, strict=True)}}


def _number(parameter, value) -> float | None:
    """A size or integer value that converts but is not a level; None for other types and bad values."""
    if parameter.type not in ("size", "integer", "float"):
        return None
    from iotune.units import parse_size

    try:
        number = parse_size(value) if parameter.type == "size" else float(value)
    except (ValueError, TypeError, SpaceError):
        return None
    return float(number) if number > 0 or parameter.type != "size" else None


def _scale(parameter, value) -> float:
    return math.log2(max(float(value), 1.0)) if parameter.type == "size" else float(value)


def decide_all(space, trials, confidence: float = CONFIDENCE) -> list[Decision]:
    """The answer for every measured workload of ``trials``."""
    groups = measured_configurations(space, trials)
    names = [p.name for p in space.workload_parameters]
    spreads = {key: workload_spread(m.times for m in ranked) for key, ranked in groups.items()}
    out = []
    for key, ranked in groups.items():
        workload = {name: ranked[0].config.get(name) for name in names}
        elsewhere = spread_of_workloads(spread for k, spread in spreads.items() if k != key)
        out.append(decide_measured(space, workload, ranked, [], confidence, elsewhere))
    out.sort(key=lambda d: [str(v) for v in d.workload.values()])
    return out


def system_configurations(space, workload: dict, limit: int = MAX_CANDIDATES) -> list:
    """Every valid configuration of ``space`` at ``workload`` (levels), at most ``limit`` (the first ones)."""
    system = space.system_parameters
    out: dict[str, Any] = {}
    for combo in itertools.product(*(p.levels for p in system)):
        try:
            configuration = space.configuration({**workload, **dict(zip((p.name for p in system), combo, strict=True))})
        except SpaceError:
            continue
        out.setdefault(configuration.key, configuration)
        if len(out) >= limit:
            break
    return list(out.values())


__all__ = ["CONFIDENCE", "Decision", "DecisionError", "default_configuration", "system_configurations", "Measured",
           "apply_hints", "decide_all", "decide_measured", "effective_hints", "fastest_first",
           "in_effect", "measured_configurations", "measured_noise", "not_in_effect_text", "ratio_to_best",
           "spread_elsewhere", "tied_with_best", "workload_of"]
