"""The answer for a workload that was never measured: the tuner's transfer prediction, if it has earned
trust on this store by leave-one-workload-out (see :mod:`iotune.recommend.decision`)."""

from __future__ import annotations

import math
import shlex

import numpy as np

from iotune.recommend.decision import (
    Decision,
    DecisionError,
    Measured,
    apply_hints,
    default_configuration,
    not_in_effect_text,
    system_configurations,
)
from iotune.units import format_size


def features(space, configurations, role: str) -> np.ndarray:
    """Encoded columns of the parameters of ``role`` for ``configurations`` (as the tuner encodes them)."""
    encoder = space.encoder("onehot")
    columns = encoder.columns_of(role)
    return encoder.transform(configurations)[:, columns] if len(configurations) else np.zeros((0, len(columns)))


def workload_row(space, configuration, between: dict[str, float]) -> np.ndarray:
    """The workload feature row of ``configuration`` with each value in ``between`` at its own value: a size
    as log2 of its bytes, an integer as itself, between the neighbouring levels' encodings."""
    encoder = space.encoder("onehot")
    columns = encoder.columns_of("workload")
    row = encoder.transform([configuration])[0, columns]
    for name, value in between.items():
        parameter = space.parameter(name)
        feature = f"log2({name})" if parameter.type == "size" else name
        at = columns.index(encoder.feature_names.index(feature))
        row[at] = math.log2(max(value, 1.0)) if parameter.type == "size" else float(value)
    return row


def _prior(space, groups: dict[str, list[Measured]], leave_out: str | None):
    from iotune.transfer import Prior

    rows, values, labels = [], [], []
    for key, ranked in groups.items():
        if key == leave_out:
            continue
        for measured in ranked:
            try:
                rows.append(space.configuration(measured.config))
            except Exception:  # noqa: BLE001 - a stored configuration this space no longer holds
                continue
            values.append(measured.mean)
            labels.append(key)
    if not rows:
        return None
    return Prior(np.array(labels), features(space, rows, "system"), np.array(values),
                 np.zeros(len(values), dtype=bool), features(space, rows, "workload"))


def _predict(space, candidates, prior, workload: np.ndarray, seed: int) -> np.ndarray:
    from iotune.transfer import TransferTuner

    engine = TransferTuner(features(space, candidates, "system"), prior, workload, seed=seed)
    mean, _ = engine.predict(())
    return np.asarray(mean, dtype=float)


def held_out(space, groups: dict[str, list[Measured]], seed: int = 0) -> tuple[list[float], list[float]]:
    """Per measured workload whose default was measured, held out in turn: log(time of the transfer
    prediction's pick / best time) and log(default time / best time)."""
    picks, defaults = [], []
    for key, ranked in groups.items():
        if len(ranked) < 3:
            continue
        workload = {p.name: ranked[0].config.get(p.name) for p in space.workload_parameters}
        default = default_configuration(space, workload)
        measured_default = next((m for m in ranked if m.config == default), None)
        prior = _prior(space, groups, key)
        if measured_default is None or prior is None:
            continue
        candidates = [space.configuration(m.config) for m in ranked]
        mean = _predict(space, candidates, prior, workload_row(space, candidates[0], {}), seed)
        best = ranked[0].mean
        picks.append(math.log(ranked[int(np.argmin(mean))].mean / best))
        defaults.append(math.log(measured_default.mean / best))
    return picks, defaults


def decide_unmeasured(space, groups: dict[str, list[Measured]], shown: dict, workload: dict,
                      between: dict[str, float], seed: int = 0, tune_command: str = "") -> Decision:
    """The transfer prediction for ``workload`` (levels; ``between``: values interpolated), if trusted."""
    default = default_configuration(space, workload)
    decision = Decision(workload=shown, basis="none", best=None, default=default)
    if between:
        decision.notes.append("; ".join(
            f"{name}={_format(space.parameter(name), value)} is not a level of the space: interpolated between "
            "the measured workloads (by how similar each one is)" for name, value in between.items()))
    command = tune_command or "iotune tune SPEC.yaml --workload " + shlex.quote(",".join(
        f"{k}={_format(space.parameter(k), v)}" for k, v in shown.items()))
    if not groups:
        decision.message = "this workload was not measured and the study has no runs to predict it from"
        decision.advice = f"measure it: {command}"
        return decision
    picks, defaults = held_out(space, groups, seed)
    if len(picks) < 2:
        decision.message = (f"this workload was not measured, and the transfer prediction cannot be checked on "
                            f"fewer than 2 other measured workloads with their default measured ({len(picks)} here)")
        decision.advice = f"measure it: {command}"
        return decision
    pick_regret, default_regret = math.exp(np.mean(picks)), math.exp(np.mean(defaults))
    checked = (f"held out one at a time, the {len(picks)} measured workloads got {pick_regret:.2f}x their best time "
               f"from the transfer prediction's picks and {default_regret:.2f}x from the default")
    if pick_regret >= default_regret:
        decision.message = f"this workload was not measured and no prediction is trustworthy: {checked}"
        decision.advice = f"measure it: {command}"
        return decision
    candidates = system_configurations(space, workload)
    if not candidates:
        raise DecisionError(f"space {space.name!r} has no valid configuration for the workload " + ", ".join(
            f"{k}={_format(space.parameter(k), v)}" for k, v in workload.items())
            + (" (the nearest levels of the values that are not levels)" if between else ""))
    prior = _prior(space, groups, None)
    mean = _predict(space, candidates, prior, workload_row(space, candidates[0], between), seed)
    pick = int(np.argmin(mean))
    best = candidates[pick].to_dict()
    for name in between:
        best[name] = shown[name]
    decision.basis, decision.best, decision.best_time = "transfer", best, float(math.exp(mean[pick]))
    if default is not None:
        at = next((i for i, c in enumerate(candidates) if c.to_dict() == default), None)
        decision.default_time = None if at is None else float(math.exp(mean[at]))
    changed = _read_back_elsewhere(space, groups, candidates[pick].to_dict())
    decision.not_in_effect = changed
    decision.apply_hints = apply_hints(space, candidates[pick].to_dict(), changed)
    if changed:
        decision.notes.append(not_in_effect_text(changed).replace(" (read back", " (read back in other workloads' "
                                                                  "runs of these settings", 1))
    decision.message = f"predicted from the other workloads' runs (not measured); {checked}"
    decision.advice = f"to confirm it, measure: {command}"
    return decision


def _format(parameter, value) -> str:
    if parameter.type == "size":
        return format_size(int(value))
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _read_back_elsewhere(space, groups, config: dict) -> dict[str, tuple[str, str]]:
    """The hints of ``config`` that did not take effect as asked in another workload's runs of the same system
    settings (read back with ``MPI_File_get_info``): a predicted configuration has no read-back of its own."""
    names = [p.name for p in space.system_parameters]
    wanted = [config.get(n) for n in names]
    for ranked in groups.values():
        for measured in ranked:
            if [measured.config.get(n) for n in names] == wanted and measured.not_in_effect:
                return dict(measured.not_in_effect)
    return {}
