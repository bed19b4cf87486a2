"""Tuning: the runs of ``iotune tune`` in order, why each was chosen, and the best so far with its interval.

A workload was tuned when the tuner recorded why it chose one of its runs (the
study setting ``tuning_reasons``) or the study was made by ``iotune tune``.
All its runs in the study are shown in queue order (the tuner counts them all
against its budget); a run the tuner did not choose (measured by a campaign
before it) says so.  After each run the best so far is the measured
configuration ``tune`` declares, with the 95 % interval it states
(:func:`iotune.study.tune.summarise_runs`, over the race's rounds once it raced: noise from this
workload's repeats, else the study's other workloads', else a stated
conservative prior; the tuning's prior studies are not read here).
"""

from __future__ import annotations

from iotune.errors import IotuneError
from iotune.report.tables import Section, Table, fmt_number, label_of, system_label
from iotune.study.objective import Objective
from iotune.study.tune import REASONS_KEY, summarise_runs

TITLE = "Tuning"
NOT_CHOSEN = "not chosen by the tuner (measured before it ran)"


def _display(value: float | None, objective: str) -> float | None:
    """A run's objective in the unit shown: seconds, MiB/s (bandwidth runs are kept as s/MiB), or cost."""
    if value is None:
        return None
    return 1.0 / value if objective == "bandwidth" and value > 0 else value


def _unit(objective: str) -> str:
    return {"time": "I/O time (s)", "bandwidth": "bandwidth (MiB/s)"}.get(objective, objective)


def tuned_workloads(data) -> dict[str, list]:
    """Trials of each tuned workload (workload key: its trials in queue order)."""
    reasons = data.settings.get(REASONS_KEY) or {}
    made_by_tune = data.settings.get("sampler") == "tune"
    tuned = {key.rsplit("#", 1)[0] for key in reasons}
    keys = {t.workload_key for t in data.trials if made_by_tune or t.config_key in tuned}
    out: dict[str, list] = {}
    for trial in sorted(data.trials, key=lambda t: (t.seq is None, t.seq or 0, t.id)):
        if trial.workload_key in keys and trial.state in ("COMPLETE", "FAILED"):
            out.setdefault(trial.workload_key, []).append(trial)
    return out


def tuning_table(data, trials: list, objective: Objective, store_groups) -> tuple[Table, str]:
    """One workload's runs in order with the best so far and its interval, and a closing sentence."""
    space, name = data.space, objective.name
    reasons = data.settings.get(REASONS_KEY) or {}
    index: dict[str, int] = {}
    observations, rounds, rows = [], [], []
    workload = {p.name: trials[0].config.get(p.name) for p in space.workload_parameters}
    default = space.configuration({k: v for k, v in workload.items() if v is not None}).key
    configs = {}
    for k, trial in enumerate(trials, start=1):
        i = index.setdefault(trial.config_key, len(index))
        configs[i] = trial.config
        value = objective.run_value(trial) if trial.state == "COMPLETE" and trial.phases else None
        observations.append((i, value))
        rounds.append(trial.race_round)
        summary = summarise_runs(observations, None, index.get(default), store_groups, rounds)
        best, best_index = summary.best, summary.best_index
        reason = reasons.get(f"{trial.config_key}#{trial.repeat}", NOT_CHOSEN)
        rows.append((k, system_label(space, trial.config), reason,
                     _display(value, name),
                     None if best is None or best_index is None else system_label(space, configs[best_index]),
                     None if best is None else _display(best.value, name),
                     None if best is None or not summary.known else
                     _display(best.high if name == "bandwidth" else best.low, name),
                     None if best is None or not summary.known else
                     _display(best.low if name == "bandwidth" else best.high, name),
                     None if best is None else best.runs))
    unit = _unit(name)
    table = Table(("run", "configuration", "why it was chosen", unit, "best so far", f"best so far: mean {unit}",
                   "95% low", "95% high", "best's runs"), rows,
                  f"Tuning of {label_of(space, workload, 'workload')}",
                  "Runs in the order they were queued. Best so far: the configuration `tune` declares (the lowest "
                  "geometric mean, never failed; over the race's rounds once it raced); its 95% interval allows for "
                  "the noise (" + summary.noise.source + ") and for its having been picked as the lowest of those "
                  "measured (or raced), and is left out while no configuration has run twice.")
    label = None if summary.best is None or summary.best_index is None else \
        system_label(space, configs[summary.best_index])
    return table, _closing(summary, name, label)


def _closing(summary, objective: str, label: str | None) -> str:
    if summary is None or summary.best is None:
        return "No run succeeded: nothing to declare."
    runs = "one run" if summary.best.runs == 1 else f"{summary.best.runs} runs"
    unit = {"time": " s", "bandwidth": " MiB/s"}.get(objective, "")
    text = f"Declared best: {label}, {fmt_number(_display(summary.best.value, objective))}{unit} from {runs}"
    if summary.gain is not None and not summary.known:
        text += (f"; {fmt_number(summary.gain.value)}x the default configuration (no interval: no configuration "
                 "ran twice, so the run-to-run noise is unknown)")
    elif summary.gain is not None:
        text += (f"; {fmt_number(summary.gain.value)}x the default configuration (95% interval "
                 f"{fmt_number(summary.gain.low)}x .. {fmt_number(summary.gain.high)}x"
                 + (", which includes no gain" if summary.gain.low <= 1 else "")
                 + (", from a race's paired rounds" if summary.confirmed else "") + ")")
    if summary.separated is True:
        text += "; separated from the runner-up beyond the noise"
    elif summary.separated is False:
        text += "; the runner-up cannot be told apart from it with these runs"
    return text + "."


def tuning_section(data) -> Section:
    """Each tuned workload's runs, why they were chosen and the best so far; nothing when none was tuned."""
    tuned = tuned_workloads(data)
    if not tuned:
        return Section.nothing("tuning", TITLE, "No workload of this study was tuned (`iotune tune` records why it "
                               "chose each run; it has not run here).")
    try:
        objective = Objective(data.settings.get("objective") or "time")
    except (IotuneError, ValueError) as error:
        return Section.nothing("tuning", TITLE, f"The tuning's objective cannot be evaluated: {error}")
    section = Section("tuning", TITLE, paragraphs=[
        f"{len(tuned)} workload(s) tuned by `iotune tune` for {objective.name}: every run of each, in order, "
        "with why it was chosen and the best so far with the 95% interval `tune` states."])
    for workload_key, trials in tuned.items():
        groups: dict[tuple[str, str], list[float]] = {}
        for trial in data.measured:
            if trial.workload_key != workload_key:
                value = objective.run_value(trial)
                if value is not None:
                    groups.setdefault((trial.workload_key, trial.config_key), []).append(value)
        store_groups = [(w, runs) for (w, _), runs in groups.items() if len(runs) > 1]
        table, closing = tuning_table(data, trials, objective, store_groups)
        section.tables.append(table)
        section.paragraphs.append(f"{table.title}: {closing}")
    return section
