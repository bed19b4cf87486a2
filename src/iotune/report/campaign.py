"""The campaign: what was measured, where, on what platform, how many trials, what failed, how long it took."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime

from iotune.records import io_seconds
from iotune.report.tables import Figure, Section, Table, fmt_number, label_of
from iotune.units import format_size

SIZE_FIELDS = ("block_size", "transfer_size")
ERROR_CHARS = 300


def parameters_table(space) -> Table:
    """One row per parameter: role, layer, levels, default and the rule that makes it active."""
    rows = [(p.name, p.role, p.layer, p.type, ", ".join(p.format(v) for v in p.levels),
             p.format(p.default) if p.role == "system" else "", p.when or "") for p in space.parameters]
    return Table(("parameter", "role", "layer", "type", "levels", "default configuration's value", "active when"),
                 rows, "What was measured: the parameters",
                 "The default configuration sets every system parameter to its default (the `default:` key of the "
                 "spec, else the first level listed).")


def benchmark_table(spec) -> Table:
    """The benchmark fields the spec fixes for every trial (sizes in bytes shown with their unit)."""
    rows = []
    for name, value in sorted(spec.benchmark.items()):
        if name in SIZE_FIELDS and isinstance(value, int):
            value = f"{format_size(value)} ({value} bytes)"
        elif isinstance(value, dict):
            value = " ".join(f"{k}={v}" for k, v in value.items()) or "-"
        rows.append((name, str(value)))
    return Table(("benchmark field", "value"), rows, "Benchmark settings fixed for every trial")


def state_table(trials) -> Table:
    """Trials per state (PENDING, RUNNING, COMPLETE, FAILED, INVALID)."""
    counts = Counter(t.state for t in trials)
    return Table(("state", "trials"), [(state, counts[state]) for state in
                                       ("COMPLETE", "FAILED", "INVALID", "RUNNING", "PENDING") if counts[state]],
                 "Trials by state")


def failures_table(data) -> Table:
    """FAILED and INVALID trials grouped by their error text: how many, and one configuration that hit it."""
    groups: dict[tuple[str, str], list] = {}
    for trial in data.trials:
        if trial.state in ("FAILED", "INVALID"):
            error = (trial.error or "no error text recorded").strip()
            error = error if len(error) <= ERROR_CHARS else error[:ERROR_CHARS] + "..."
            groups.setdefault((trial.state, error), []).append(trial)
    rows = [(state, len(found), error, label_of(data.space, found[0].config))
            for (state, error), found in sorted(groups.items(), key=lambda item: -len(item[1]))]
    return Table(("state", "trials", "error", "for example"), rows, "Failures and their errors")


def platform_table(data) -> Table:
    """One row per platform the trials recorded: host, kernel, MPI, the scratch's file system and path."""
    used = Counter(t.platform_id for t in data.trials if t.platform_id is not None)
    rows = []
    for platform_id, info in sorted(data.platforms.items()):
        mpi = " ".join(str(info.get(k) or "") for k in ("mpi_library", "mpi_version")).strip()
        rows.append((info.get("hostname") or "-", info.get("kernel") or "-", info.get("os") or "-",
                     info.get("cpu_model") or "-", info.get("cores") or "-", info.get("fs_type") or "unknown",
                     info.get("scratch") or "not recorded", mpi or "-", info.get("iotune_version") or "-",
                     used[platform_id]))
    return Table(("host", "kernel", "OS", "CPU", "cores", "file system", "scratch directory", "MPI library",
                  "iotune", "trials"), rows, "Where it ran (the trials' platform records)")


def storage_table(data) -> Table:
    """Storage built on testbeds (``extra["storage"]`` of the trials): configuration and trials measured on it."""
    counts: Counter = Counter()
    for trial in data.trials:
        storage = (trial.extra or {}).get("storage")
        if storage:
            counts[json.dumps(storage, sort_keys=True)] += 1
    rows = [(" ".join(f"{k}={v}" for k, v in json.loads(key).items()), n) for key, n in sorted(counts.items())]
    return Table(("storage built (testbed)", "trials"), rows, "Storage the trials were measured on")


def _time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def timeline_table(data) -> Table:
    """Finished trials in the order they started: minutes since the first start, state, I/O time (seconds)."""
    timed = [(start, t) for t in data.trials if t.state in ("COMPLETE", "FAILED") and (start := _time(t.started_at))]
    if not timed:
        return Table(("minutes since start", "state", "I/O time (s)"), [])
    first = min(start for start, _ in timed)
    rows = [((start - first).total_seconds() / 60.0, t.state, io_seconds(t.phases) if t.state == "COMPLETE" else None)
            for start, t in sorted(timed, key=lambda item: item[0])]
    return Table(("minutes since start", "state", "I/O time (s)"), rows, "Trials over time")


def time_spent(data) -> dict:
    """Seconds: wall time of the trials, their I/O time, and the span from the first start to the last finish."""
    starts = [s for t in data.trials if (s := _time(t.started_at))]
    ends = [e for t in data.trials if (e := _time(t.finished_at))]
    return {
        "trial_wall_s": sum(t.wall_seconds or 0.0 for t in data.trials),
        "io_s": sum(io_seconds(t.phases) for t in data.measured),
        "span_s": (max(ends) - min(starts)).total_seconds() if starts and ends else None,
        "first_start": min(starts).isoformat(timespec="seconds") if starts else None,
        "last_finish": max(ends).isoformat(timespec="seconds") if ends else None,
    }


def campaign_section(data) -> Section:
    """The campaign section of a study's report."""
    settings, spec = data.settings, data.spec
    section = Section("campaign", "The campaign")
    sampler = settings.get("sampler") or settings.get("design") or (spec.campaign.sampler if data.record.spec_yaml
                                                                     else None)
    configurations = {t.config_key for t in data.trials}
    measured = {t.config_key for t in data.measured}
    workloads = {t.workload_key for t in data.trials}
    repeats = Counter(t.config_key for t in data.measured).values()
    how = (f"configurations chosen by the {sampler} sampler (seed {settings.get('seed', spec.campaign.seed)}"
           + (f", budget {settings['budget']}" if settings.get("budget") else "") + ")") if sampler else \
        "how configurations were chosen is not recorded (an imported study)"
    runs = (f"{min(repeats)} to {max(repeats)} completed repeats per measured configuration" if repeats and
            min(repeats) != max(repeats) else f"{max(repeats)} completed repeat(s) per measured configuration"
            if repeats else "no completed repeat")
    text = (f"Study {data.name}" + (f" ({data.record.description})" if data.record.description else "")
            + f", created {data.record.created_at[:19].replace('T', ' ')} UTC: {len(data.trials)} trials of "
            f"{len(configurations)} configurations ({len(measured)} measured) over {len(workloads)} workload(s); "
            f"{how}; {runs}; objective: {spec.campaign.objective}.")
    section.paragraphs.append(text)
    spent = time_spent(data)
    if spent["span_s"] is not None:
        section.paragraphs.append(
            f"Time spent: {fmt_number(spent['span_s'] / 60, 3)} min from the first trial's start "
            f"({spent['first_start']}) to the last one's end ({spent['last_finish']}); "
            + (f"the trials took {fmt_number(spent['trial_wall_s'], 4)} s of wall time, of which "
               if spent["trial_wall_s"] > 0 else "")
            + f"{fmt_number(spent['io_s'], 4)} s were timed I/O (write and read phases).")
    else:
        section.paragraphs.append(f"Time spent: not recorded (imported trials); timed I/O "
                                  f"{fmt_number(spent['io_s'], 4)} s in all.")
    section.tables.append(parameters_table(data.space))
    if spec.benchmark:
        section.tables.append(benchmark_table(spec))
    section.tables.append(state_table(data.trials))
    platforms = platform_table(data)
    if platforms.rows:
        section.tables.append(platforms)
        if all(row[6] == "not recorded" for row in platforms.rows):
            section.paragraphs.append("The scratch directory the benchmark wrote into is not in these platform "
                                      "records; the file system column is that directory's.")
    else:
        section.paragraphs.append("Where it ran: no platform recorded (trials imported without platform "
                                  "records): host, kernel, MPI and file system are unknown.")
    storage = storage_table(data)
    if storage.rows:
        section.tables.append(storage)
    failures = failures_table(data)
    if failures.rows:
        section.tables.append(failures)
        failed = sum(row[1] for row in failures.rows)
        section.warnings.append(f"{failed} of {len(data.trials)} trials failed or could not run; their errors are "
                                "listed below.")
    else:
        section.paragraphs.append("No trial failed.")
    timeline = timeline_table(data)
    if len(timeline) >= 2:
        section.figures.append(Figure(
            "campaign-timeline", "timeline", "I/O time of each trial, in the order the trials ran", timeline,
            "Each point is one trial (write and read phases summed); failed trials are marked at the bottom. "
            "A drift over time means the machine changed while measuring.",
            {"x": "minutes since start", "y": "I/O time (s)", "state": "state"}))
    return section
