"""Choose the configuration to run with (paper 001, Section IV-A: the optimization engine).

Paper 001's engine picks, by process count, the best configuration found in
past runs.  Here, in order: the application's own runs, else the one decision of
:mod:`iotune.recommend.decision` (the best measured configuration of the study
for this workload; for an unmeasured one the transfer prediction when it held on
the measured workloads), else the space's defaults, said not to be a recommendation.  With
probability ``explore`` (seeded) an untested configuration is tried instead:
the model's best untested candidate, or a random untested one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from iotune.analysis import configuration_stats
from iotune.errors import IotuneError, StoreError
from iotune.recommend.answer import decide
from iotune.recommend.decision import decide_all
from iotune.stored import StoredStudy

CANDIDATES = 50


@dataclass
class Choice:
    """The configuration chosen, how (runs, measured, model, default, explore) and why, in words."""

    configuration: Any
    how: str
    reason: str
    notes: list[str] = field(default_factory=list)


def workload_values(space, workload: dict | None, processes: int | None) -> tuple[dict[str, Any], list[str]]:
    """Values of the space's workload parameters that the workload (values in :mod:`iotune.workload`'s
    vocabulary) or the process count fixes.

    A value that is not a level becomes the nearest level (numbers) and is
    noted; parameters the workload does not describe are left out.
    """
    values: dict[str, Any] = {}
    notes: list[str] = []
    described = dict(workload or {})
    value: Any
    for parameter in space.workload_parameters:
        if parameter.name == "processes" and processes is not None and workload is None:
            value = processes
        elif described.get(parameter.name) is not None:  # None: inactive (a `when:` rule), as results gives it
            value = described[parameter.name]
        else:
            continue
        value = parameter.normalise(value) if not isinstance(value, (bool, int)) else value
        if value not in parameter.levels:
            numeric = [v for v in parameter.levels if isinstance(v, (int, float)) and not isinstance(v, bool)]
            if not numeric or isinstance(value, (bool, str)):
                notes.append(f"workload {parameter.name}={value} is not a level of the space: not used")
                continue
            nearest = min(numeric, key=lambda level: abs(level - value))
            notes.append(f"workload {parameter.name}={value} is not a level of the space: nearest level {nearest} used")
            value = nearest
        values[parameter.name] = value
    return values, notes


def _matches(config: dict, values: dict[str, Any]) -> bool:
    return all(config.get(name) == value for name, value in values.items())


def _model(study: StoredStudy):
    try:
        from iotune.learn.model import load_model

        return load_model(study)
    except StoreError:
        return None


def _full_workload(space, values: dict[str, Any]) -> dict[str, Any]:
    return {p.name: values.get(p.name, p.default) for p in space.workload_parameters}


def _recommended(model, space, values: dict[str, Any], top: int = 1) -> list:
    from iotune.recommend import Recommender

    try:
        result = Recommender(model, space=space).recommend(_full_workload(space, values), top=top)
    except IotuneError:
        return []
    return [space.configuration(candidate.configuration) for candidate in result.candidates]


def _untested(space, values, tested: set[str], model, rng: random.Random):
    if model is not None:
        for configuration in _recommended(model, space, values, top=CANDIDATES):
            if configuration.key not in tested:
                return configuration, "the model's best untested candidate"
    pool = [c for c in space.enumerate() if _matches(c, values) and c.key not in tested]
    if pool:
        return rng.choice(pool), "a random untested configuration"
    return None, ""


def _runs_of(study: StoredStudy, command: str | None, values: dict, measure: str | None) -> list:
    """COMPLETE runs of ``command`` recorded under ``study`` (in ``<study>-runs``) for this workload, measured as
    ``measure`` (:func:`iotune.apply.command.measure_key`; any when None)."""
    from iotune.apply.command import measure_of

    runs = study.store.get_study(f"{study.name}-runs")
    if command is None or runs is None:
        return []
    return [t for t in study.store.trials(study=runs.id, state="COMPLETE")
            if t.command == command and _matches(t.config, values)
            and (measure is None or measure_of(t.extra) == measure)]


def _measure_words(measure: str | None) -> str:
    if measure is None or measure == "wall time":
        return "mean wall time {:.4g} s"
    if measure == "darshan io time":
        return "mean I/O time (Darshan) {:.4g} s"
    if measure == "pmpi io time":
        return "mean I/O time (PMPI, measured inside the application) {:.4g} s"
    if measure.startswith("metric maximized"):
        return "mean of 1/metric {:.4g}"
    return "mean metric {:.4g}"


def choose_configuration(study: StoredStudy, workload: dict | None = None, processes: int | None = None,
                         explore: float = 0.0, seed: int | None = None, command: str | None = None,
                         measure: str | None = None) -> Choice:
    """The configuration to run ``workload`` with: the application's own runs, else the study's measurements,
    the transfer prediction or the defaults (paper 001's optimization engine, Fig. 2).

    Runs recorded by ``iotune run`` (study ``<study>-runs``) time whole
    applications: once the same ``command`` has run under two or more
    configurations, the one with the best mean wins, so every run teaches the
    next; only runs measured as ``measure`` are compared (wall time, Darshan's or
    the PMPI library's I/O time, or one metric: :func:`iotune.apply.command.measure_key`).  They
    never mix with the benchmark's I/O times.
    """
    if not 0.0 <= explore <= 1.0:
        raise IotuneError(f"--explore must be a probability between 0 and 1, got {explore}")
    space = study.space
    values, notes = workload_values(space, workload, processes)
    measured = [t for t in study.trials() if t.runner != "command"]
    trials = [t for t in measured if _matches(t.config, values)]
    model = _model(study)
    rng = random.Random(seed)
    runs = _runs_of(study, command, values, measure)
    if explore and rng.random() < explore:
        tested = {t.config_key for t in trials + runs if t.state in ("COMPLETE", "INVALID")}
        configuration, what = _untested(space, values, tested, model, rng)
        if configuration is not None:
            return Choice(configuration, "explore", f"exploring {what} (probability {explore})", notes)
    ran = [s for s in configuration_stats(runs).values() if s.n]
    if len(ran) >= 2:
        fastest = min(ran, key=lambda s: s.mean_time)
        return Choice(space.configuration(fastest.config), "runs",
                      f"fastest of the {len(ran)} configurations this command ran with: "
                      + _measure_words(measure).format(fastest.mean_time) + f" over {fastest.n} run(s)", notes)
    decisions = [d for d in decide_all(space, trials) if d.best is not None and _matches(d.best, values)]
    timed = [(d.best_time, d) for d in decisions if d.best_time is not None]
    if timed:
        best = min(timed, key=lambda pair: pair[0])[1]
        return Choice(space.configuration(best.best), "measured",
                      f"best measured: mean I/O time {best.best_time:.4g} s over {best.runs} repeat(s); "
                      f"{best.message}", notes + best.notes)
    workload = _full_workload(space, values)
    try:
        decision = decide(space, measured, workload)
    except IotuneError as error:
        decision, notes = None, notes + [str(error)]
    if decision is not None and decision.basis == "transfer" and decision.best is not None:
        return Choice(space.configuration({**workload, **decision.best}), "predicted", decision.message, notes)
    why = decision.message if decision is not None else "no measurement for this workload"
    advice = f"; {decision.advice}" if decision is not None and decision.advice else ""
    return Choice(space.configuration(workload), "default",
                  f"{why}: running the space's defaults, not a recommendation{advice}", notes)
