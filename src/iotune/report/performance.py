"""Bandwidth and I/O time per configuration, write and read apart, every repeat kept, the default marked."""

from __future__ import annotations

import statistics

from iotune.records import io_seconds
from iotune.report.tables import Figure, Section, Table, system_label, workload_label, workload_names
from iotune.units import MIB

MAX_CONFIGURATIONS = 20
"""Configurations drawn per workload at most: beyond it, the fastest, the default and the slowest."""
MAX_ROWS = 240
"""Configurations drawn in all: with many workloads, fewer per workload (at least 5)."""
MAX_WORKLOADS = 24
PHASES = ("write", "read")
COLUMNS = ("workload", "configuration", "default configuration", "repeat", "I/O time (s)", "bandwidth (MiB/s)")


def _groups(data) -> dict[str, dict[str, list]]:
    """Measured trials by workload label (the workload parameters that vary), then by system-configuration label."""
    out: dict[str, dict[str, list]] = {}
    names = workload_names(data.space, (t.config for t in data.measured))
    for trial in data.measured:
        workload = workload_label(data.space, trial.config, names)
        out.setdefault(workload, {}).setdefault(system_label(data.space, trial.config), []).append(trial)
    return dict(sorted(out.items()))


def per_workload_limit(workloads: int) -> int:
    """Configurations drawn per workload when ``workloads`` workloads are drawn."""
    return max(5, min(MAX_CONFIGURATIONS, MAX_ROWS // max(1, workloads)))


def _shown(configurations: dict[str, list], default_label: str | None, limit: int) -> tuple[list[str], int]:
    """Labels to draw, fastest first (by mean I/O time), and how many were left out."""
    order = sorted(configurations, key=lambda k: statistics.fmean(io_seconds(t.phases) for t in configurations[k]))
    if len(order) <= limit:
        return order, 0
    half = (limit - 1) // 2
    kept = set(order[:half] + order[-half:])
    if default_label is not None:
        kept.add(default_label)
    keep = [k for k in order if k in kept]
    return keep, len(order) - len(keep)


def phase_table(data, phase: str) -> tuple[Table, int, int]:
    """Every repeat of ``phase`` (write or read) of the configurations drawn: time in seconds, bandwidth in MiB/s.

    Returns the table, the configurations left out (beyond MAX_CONFIGURATIONS
    per workload) and the workloads left out (beyond MAX_WORKLOADS).
    """
    groups = _groups(data)
    rows, left_out = [], 0
    limit = per_workload_limit(min(len(groups), MAX_WORKLOADS))
    for workload, configurations in list(groups.items())[:MAX_WORKLOADS]:
        defaults = [k for k, trials in configurations.items() if data.is_default(trials[0].config)]
        shown, dropped = _shown(configurations, defaults[0] if defaults else None, limit)
        left_out += dropped
        for label in shown:
            for trial in sorted(configurations[label], key=lambda t: t.repeat):
                for p in trial.phases:
                    if p.phase == phase and p.seconds > 0:
                        rows.append((workload, label, data.is_default(trial.config), trial.repeat, p.seconds,
                                     p.bytes / MIB / p.seconds))
    return Table(COLUMNS, rows, f"{phase} phase, every repeat"), left_out, max(0, len(groups) - MAX_WORKLOADS)


def best_table(data) -> Table:
    """Per workload: configurations measured, the fastest (the one estimate's: geometric mean I/O time, seconds;
    hints as they took effect) and the default configuration, as ``iotune results`` states them."""
    from iotune.recommend.decision import decide_all

    names = workload_names(data.space, (t.config for t in data.measured))
    rows = []
    for decision in sorted(decide_all(data.space, data.measured),
                           key=lambda d: workload_label(data.space, d.workload, names)):
        best = decision.ranked[0]
        label = system_label(data.space, best.config) + "".join(
            f" ({k} ran as {r})" for k, (_, r) in decision.not_in_effect.items())
        sd_best = statistics.stdev(best.times) if best.n > 1 else None
        interval = decision.gain_interval
        rows.append((workload_label(data.space, decision.workload, names), len(decision.ranked), label,
                     decision.best_time, sd_best, best.n, decision.default_time, decision.gain,
                     None if interval is None else interval.low, None if interval is None else interval.high))
    return Table(("workload", "configurations measured", "fastest configuration", "its mean I/O time (s)",
                  "its sd (s)", "its repeats", "default configuration's mean I/O time (s)",
                  "default / fastest (x)", "95% low (x)", "95% high (x)"), rows,
                 "Fastest measured configuration per workload",
                 "I/O time is the write and read phases' seconds summed; means are geometric over the repeats (a "
                 "tuned workload's fastest and gain from its race), as iotune results states them; default / "
                 "fastest above 1 means tuning gained that factor. A hint that did not take effect as asked says "
                 "what it ran as (read back with MPI_File_get_info).")


def performance_section(data) -> Section:
    """Strip plots of every repeat per configuration and phase, and the fastest configuration per workload."""
    title = "Bandwidth and I/O time per configuration"
    if not data.measured:
        return Section.nothing("performance", title, "No trial of this study completed: there is nothing to show.")
    section = Section("performance", title)
    section.tables.append(best_table(data))
    phases = [p for p in PHASES if any(ph.phase == p for t in data.measured for ph in t.phases)]
    for phase in phases:
        rows, dropped, workloads_dropped = phase_table(data, phase)
        caption = (f"{phase.capitalize()} phase: each dot is one repeat, the bar the mean; configurations are "
                   "sorted fastest first within each workload (bold headings); the default configuration is drawn "
                   "in orange and marked (default). Bandwidth is the phase's bytes over its seconds "
                   "(MiB/s, 2^20 bytes per s).")
        if dropped:
            caption += (f" {dropped} configurations are left out (the fastest, the default and the slowest "
                        "of each workload are drawn; `iotune export` gives every trial).")
        if workloads_dropped:
            caption += f" {workloads_dropped} workloads are left out (the first {MAX_WORKLOADS} are drawn)."
        section.figures.append(Figure(f"per-configuration-{phase}", "strip", f"{phase.capitalize()}: I/O time and "
                                      "bandwidth of every repeat", rows, caption,
                                      {"group": "workload", "label": "configuration",
                                       "default": "default configuration",
                                       "values": ["I/O time (s)", "bandwidth (MiB/s)"]}))
    missing = [p for p in PHASES if p not in phases]
    if missing:
        section.paragraphs.append(f"The study measured no {' and no '.join(missing)} phase.")
    return section
