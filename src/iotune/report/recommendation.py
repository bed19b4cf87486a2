"""The recommendation for a workload: the configurations a model predicts best, the expected gain over the
default configuration with an interval, and how to apply it (:mod:`iotune.apply.forms`).

The gain is default time / recommended time (above 1: faster; bandwidth: the
other way round).  Its 95 % interval:

- **measured** when the study measured both configurations for that workload
  at least twice: the ratio of their mean times, with the log-normal interval
  of :mod:`iotune.variability.confidence` (their repeats' pooled spread,
  pooled with a conservative prior while they are few);
- **predicted** otherwise: the model's ratio times exp(+/- t s sqrt(2)), s the
  standard deviation of the model's held-out log errors (log predicted - log
  measured, folds over configurations as in :mod:`iotune.report.models`):
  both predictions carry such an error, taken independent (sqrt 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from iotune.errors import IotuneError
from iotune.records import io_seconds
from iotune.report.tables import Figure, Section, Table, label_of, short_label, system_label, varying

MAX_WORKLOADS = 24
TOP = 3
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Gain:
    """Expected gain over the default configuration (x) with its 95 % interval and where it comes from."""

    value: float
    low: float | None
    high: float | None
    basis: str


def objective_of(target: str) -> str:
    """The recommendation objective a model of ``target`` serves."""
    return {"bandwidth": "bandwidth", "cost": "cost"}.get(target, "time")


def choose_model(data):
    """The study's newest stored model, else CART on log time trained now (not saved); with a sentence saying which."""
    from iotune.errors import StoreError
    from iotune.learn import LearningError, train
    from iotune.learn.model import load_model

    try:
        model = load_model(data.store, data.name)
        return model, (f"Model: {model.name} ({model.predictor_name}, predicts {model.target}), stored with the "
                       f"study on {model.created_at[:19].replace('T', ' ')} UTC from {model.n_samples} trials.")
    except (StoreError, LearningError) as error:
        why = "the study stores no model" if isinstance(error, StoreError) else f"the stored model cannot be used ({error})"
    model = train(data.store, data.name, predictor="cart", target="time", log_target=True)
    return model, (f"Model: {why}, so a CART tree of log I/O time was trained for this report on {model.n_samples} "
                   "trials (not saved; `iotune train` saves one).")


def log_error_sd(data, model) -> float | None:
    """Standard deviation of the model's held-out log errors (module docstring); None if it cannot be computed."""
    from iotune.learn import Dataset
    from iotune.report.models import memo_key, out_of_fold

    options = model.dataset_options or {}
    try:
        dataset = Dataset.from_store(data.store, data.name, model.target, phase=options.get("phase"),
                                     categorical=model.categorical, instances=options.get("instances", 1),
                                     price_per_hour=options.get("price_per_hour", 1.0))
        if np.unique(dataset.config_keys).size < 3:
            return None
        key = memo_key(model.target, model.predictor_name, dict(model.params))
        plain = not options.get("phase") and model.categorical == "onehot" and model.target == "time"
        predicted = data.memo.get(key) if plain else None  # the model-quality section's, when the same
        if predicted is None:
            predicted, _ = out_of_fold(dataset, model.predictor_name, dict(model.params))
    except (IotuneError, ValueError, np.linalg.LinAlgError):
        return None
    ok = (predicted > 0) & (dataset.y > 0)
    if ok.sum() < 3:
        return None
    return float(np.std(np.log(predicted[ok]) - np.log(dataset.y[ok]), ddof=1))


def ratio_interval(default_runs, best_runs) -> tuple[float, float, float]:
    """mean(default) / mean(best) and its 95 % interval (runs in seconds).

    The interval is the log-normal one of :mod:`iotune.variability.confidence` with the two configurations'
    pooled repeats as the noise, pooled with its conservative prior while they hold fewer than 4 degrees of
    freedom: a bootstrap of two runs each would take their chance closeness for certainty."""
    from iotune.variability.confidence import estimate_noise
    from iotune.variability.confidence import ratio_interval as log_ratio_interval

    a, b = np.asarray(default_runs, float), np.asarray(best_runs, float)
    interval = log_ratio_interval(a, b, estimate_noise([a, b], min_dof=4), CONFIDENCE)
    value = float(a.mean() / b.mean())
    shift = value / interval.value  # the interval of the geometric means, carried to the ratio of the means
    return value, interval.low * shift, interval.high * shift


def gain_of(recommendation, candidate, runs: dict[str, list[float]], space, log_sd: float | None) -> Gain:
    """The candidate's gain over the recommendation's default configuration (module docstring)."""
    best_key = space.configuration(candidate.configuration).key
    default_key = space.configuration(recommendation.baseline).key
    if recommendation.objective == "time" and len(runs.get(best_key, ())) >= 2 and len(runs.get(default_key, ())) >= 2:
        value, low, high = ratio_interval(runs[default_key], runs[best_key])
        return Gain(value, low, high, "measured")
    value = candidate.improvement_vs_baseline
    if log_sd is None or not math.isfinite(value):
        return Gain(value, None, None, "predicted, no interval")
    spread = float(norm.ppf(0.5 + CONFIDENCE / 2)) * log_sd * math.sqrt(2)
    return Gain(value, value * math.exp(-spread), value * math.exp(spread), "predicted")


def space_workloads(space, limit: int) -> list[dict] | None:
    """Every distinct valid workload of ``space`` (inactive parameters left out), or None when more than ``limit``."""
    import itertools

    from iotune.errors import SpaceError

    parameters = space.workload_parameters
    if math.prod(len(p.levels) for p in parameters) > 16 * limit:
        return None
    found: dict[str, dict] = {}
    for levels in itertools.product(*(p.levels for p in parameters)):
        try:
            configuration = space.configuration(dict(zip((p.name for p in parameters), levels)))
        except SpaceError:
            continue
        found.setdefault(configuration.workload_key,
                         {k: v for k, v in configuration.workload().items() if v is not None})
        if len(found) > limit:
            return None
    return list(found.values())


def workloads_to_show(data, given: dict | None) -> tuple[list[dict], list[str]]:
    """The workloads to recommend for: the one given (mapped to the space's levels), else every workload of the
    space when there are at most MAX_WORKLOADS, else the measured ones."""
    from iotune.apply.choose import workload_values

    space = data.space
    if given is not None:
        values, notes = workload_values(space, given, None)
        for parameter in space.workload_parameters:
            if parameter.name not in values:
                values[parameter.name] = parameter.default
                notes.append(f"the workload does not give {parameter.name}: its default "
                             f"{parameter.format(parameter.default)} is used")
        return [values], notes
    every = space_workloads(space, MAX_WORKLOADS)
    if every is not None:
        return sorted(every, key=lambda w: label_of(space, w)), []
    seen: dict[str, dict] = {}
    for trial in data.measured:
        seen.setdefault(trial.workload_key, {p.name: trial.config[p.name] for p in space.workload_parameters
                                             if trial.config.get(p.name) is not None})
    ordered = sorted(seen.values(), key=lambda w: label_of(space, w))
    notes = [] if len(ordered) <= MAX_WORKLOADS else [f"the first {MAX_WORKLOADS} of {len(ordered)} measured "
                                                      "workloads are shown; --workload chooses one"]
    return ordered[:MAX_WORKLOADS], notes


def apply_blocks(space, candidate) -> list[tuple[str, str]]:
    """How to apply a candidate: each form of its hints, its environment, and storage to build."""
    from iotune.apply.forms import ior_env, lfs_setstripe, mpich_mpiio_hints, romio_hints_file

    hints, blocks = candidate.hints, []
    if hints:
        blocks.append(("ROMIO hints file (ROMIO_HINTS=FILE mpiexec ...)", romio_hints_file(hints)))
        blocks.append(("Cray MPICH", f"export MPICH_MPIIO_HINTS='{mpich_mpiio_hints(hints)}'"))
        blocks.append(("IOR", "\n".join(ior_env(hints))))
        stripe = lfs_setstripe(hints, "OUTPUT_DIR")
        if stripe:
            blocks.append(("Lustre striping of the output directory", stripe))
    if candidate.env:
        blocks.append(("Environment", "\n".join(f"export {k}={v}" for k, v in candidate.env.items())))
    storage = [p for p in space.system_parameters if p.layer in ("device", "filesystem")
               and candidate.configuration.get(p.name) is not None]
    if storage:
        blocks.append(("Storage (built, not set by hints)", " ".join(
            f"{p.name}={p.format(candidate.configuration[p.name])}" for p in storage)))
    if not blocks:
        blocks.append(("Nothing to set", "every system parameter of this candidate is at a value that needs no hint"))
    return blocks


def recommendation_section(data, workload: dict | None = None, workload_source: str | None = None) -> Section:
    """Recommendations for the given or the measured workloads, their gains with intervals, how to apply them."""
    from iotune.learn.registry import is_ranker
    from iotune.recommend import Recommender
    from iotune.recommend.uncertainty import attach_spread, spread_label

    title = "Recommendation"
    if len({t.config_key for t in data.measured}) < 3:
        return Section.nothing("recommendation", title, "Fewer than 3 configurations measured: no model to recommend "
                               "from.")
    try:
        model, model_note = choose_model(data)
        workloads, notes = workloads_to_show(data, workload)
    except IotuneError as error:
        return Section.nothing("recommendation", title, f"No recommendation: {error}")
    section = Section("recommendation", title, paragraphs=[model_note])
    if is_ranker(model.estimator):
        section.warnings.append(f"{model.name} is a ranker: its scores order configurations but predict no time, so "
                                "the gains below are ratios of scores, not of times.")
    if notes:
        section.paragraphs.append("Notes: " + "; ".join(notes) + ".")
    objective = objective_of(model.target)
    log_sd = log_error_sd(data, model)
    runs: dict[str, list[float]] = {}
    for trial in data.measured:
        runs.setdefault(trial.config_key, []).append(io_seconds(trial.phases))
    recommender = Recommender(model)
    names = varying(data.space, workloads, "workload") if len(workloads) > 1 else \
        [p.name for p in data.space.workload_parameters]
    rows, failures = [], []
    detailed = None
    for values in workloads:
        try:
            result = recommender.recommend(values, objective, TOP)
        except IotuneError as error:
            failures.append(f"{label_of(data.space, values)}: {error}")
            continue
        best = result.candidates[0]
        gain = gain_of(result, best, runs, data.space, log_sd)
        measured = runs.get(data.space.configuration(best.configuration).key)
        rows.append((short_label(data.space, values, names), system_label(data.space, best.configuration),
                     best.predicted, result.baseline_predicted, gain.value, gain.low, gain.high, gain.basis,
                     float(np.mean(measured)) if measured else None, result.co_champions))
        if detailed is None or result.evaluated > detailed.evaluated:  # the workload with the most to choose from
            detailed = result
    section.warnings += [f"No recommendation for {f}" for f in failures]
    if not rows:
        section.empty = "No workload could be recommended for."
        return section
    unit = detailed.unit
    table = Table(("workload", "recommended configuration", f"predicted ({unit})",
                   f"default configuration predicted ({unit})", "expected gain (x)", "95% low (x)", "95% high (x)",
                   "gain from", "recommended, measured mean I/O time (s)", "co-champions"), rows,
                  "Recommended configuration per workload",
                  "Expected gain over the default configuration: above 1 is better. Co-champions: candidates the "
                  "model predicts exactly as good as the first (a tree gives whole groups one value); their order "
                  "is arbitrary.")
    section.tables.append(table)
    section.figures.append(Figure(
        "recommendation-gain", "gain", "Expected gain of the recommended configuration over the default configuration",
        table,
        "Per workload: the gain (x) of the recommended configuration over the default configuration, with its 95% "
        "interval; measured where both were measured, else predicted with the model's held-out error. Left of 1: "
        "the default configuration is better.",
        {"label": "workload", "value": "expected gain (x)", "low": "95% low (x)", "high": "95% high (x)",
         "basis": "gain from"}))
    with_spread = attach_spread(detailed, data.store, data.name)
    where = f" ({workload_source})" if workload_source else ""
    candidates = Table(("rank", "configuration", f"predicted ({unit})", "vs default configuration (x)",
                        "spread of I/O time"),
                       [(c.rank, system_label(data.space, c.configuration), c.predicted,
                         c.improvement_vs_baseline, spread_label(c.spread)) for c in with_spread.candidates],
                       f"Top {len(with_spread.candidates)} for {label_of(data.space, detailed.workload)}{where}",
                       f"{detailed.evaluated} candidate configurations scored; the default configuration predicts "
                       f"{detailed.baseline_predicted:.4g} {unit}, the median candidate {detailed.median:.4g} {unit}.")
    section.tables.append(candidates)
    separation = with_spread.separation
    if len(with_spread.candidates) > 1 and separation is not None and (separation.message or separation.reason):
        section.paragraphs.append(f"Can the top candidates be told apart? {separation.message or separation.reason}.")
    chosen = "" if workload is not None else " (of the workloads above, the one with the most configurations to " \
        "choose from; --workload chooses another)"
    section.closing.append(f"How to apply the first candidate for {label_of(data.space, detailed.workload)}"
                           f"{chosen}:")
    section.blocks += apply_blocks(data.space, with_spread.candidates[0])
    return section
