"""``iotune results``: the best configuration per workload, with the spread of its repeats."""

from __future__ import annotations

import statistics

import typer

from iotune.cli.options import DB, DEFAULT_MEANING, FORMAT, STUDY
from iotune.cli.terminal import Terminal, check_format
from iotune.errors import IotuneError
from iotune.units import MIB, format_size


def _describe(values: dict, space) -> str:
    """name=value for the parameters that vary in the space (constant ones say nothing here)."""
    parts = []
    for parameter in space.parameters:
        value = values.get(parameter.name)
        if parameter.name not in values or value is None or len(parameter.levels) < 2:
            continue
        parts.append(f"{parameter.name}={format_size(value) if parameter.type == 'size' else value}")
    return " ".join(parts) or "-"


def _system(config: dict, space) -> dict:
    return {p.name: config.get(p.name) for p in space.parameters if p.role == "system"}


def no_study(store, study: str) -> IotuneError:
    """The error for a study the store does not hold, naming the ones it does."""
    from iotune.store.engine import masked

    known = [s.name for s in store.list_studies()]
    listed = ", ".join(known[:20]) + (", ..." if len(known) > 20 else "") if known else "none yet"
    return IotuneError(f"no study named {study!r} in {masked(store.url)} (studies: {listed})")


def _studies(store, study: str | None) -> list:
    """The stored study ``study`` (IotuneError naming the others when there is none), else every study."""
    if not study:
        return store.list_studies()
    record = store.get_study(study)
    if record is None:
        raise no_study(store, study)
    return [record]


def measured_as(trials) -> str:
    """What a study's stored seconds are: the benchmark's I/O time, or for application runs (``tune -- CMD``) the
    wall time, the I/O time of Darshan logs or the application's own metric (as each trial records)."""
    sources = {(t.extra or {}).get("phase_seconds_source", "wall time") for t in trials if t.runner == "command"}
    if not sources:
        return "I/O time s"
    names = {"wall time": "wall time s", "darshan io time": "I/O time s (Darshan)",
             "pmpi io time": "I/O time s (PMPI)", "metric": "metric"}
    if sources == {"metric"}:
        maximized = any(((t.extra or {}).get("metric") or {}).get("direction") == "maximized" for t in trials)
        return "1/metric (the metric is maximized)" if maximized else "metric"
    if len(sources) == 1:
        return names.get(next(iter(sources)), "time s")
    return "mixed: " + ", ".join(sorted(names.get(x, x) for x in sources))


def start_up_noise(trials) -> float | None:
    """How far apart start-up alone can put two runs (seconds, :attr:`iotune.apply.launch.StartUp.noise`) for
    application runs timed by wall time, from the launches measured when they ran (``extra["startup_seconds"]``);
    None for anything else."""
    for trial in trials:
        seconds = (trial.extra or {}).get("startup_seconds") if trial.runner == "command" else None
        if seconds and (trial.extra or {}).get("phase_seconds_source") == "wall time":
            from iotune.apply.launch import StartUp  # application runs only

            return StartUp((), tuple(seconds)).noise
    return None


def _vs_default(best, noise: float | None) -> str:
    if not best.speedup_vs_default:
        return "not measured"
    if noise is not None and best.default is not None and best.default.mean_time - best.best.mean_time <= noise:
        return f"{best.speedup_vs_default:.2f}x, within start-up noise"
    return f"{best.speedup_vs_default:.2f}x"


def _spread(mean: float, std: float, n: int) -> str:
    return f"{mean:.3f} (one run)" if n == 1 else f"{mean:.3f} ± {std:.3f} (n={n})"


def _key(space, workload: dict) -> str:
    from iotune.space.configuration import digest

    return digest({p.name: workload.get(p.name) for p in space.workload_parameters})


def _sure(decision) -> str:
    """How sure the best is, from :mod:`iotune.recommend.decision`: ahead, tied with n others, or unknown."""
    if decision.separated:
        return "ahead of the rest"
    if len(decision.tied) > 1:
        return f"tied with {len(decision.tied) - 1} (runs cannot separate them)"
    if len(decision.ranked) == 1:
        return "only one measured"
    return "unknown: one run each"


def show_best(db: str | None, study: str | None, fmt: str) -> None:
    from iotune.analysis import best_per_workload
    from iotune.recommend.decision import decide_all, not_in_effect_text
    from iotune.store import open_reader
    from iotune.store.engine import masked

    terminal = Terminal()
    with open_reader(db) as store:
        studies = _studies(store, study)
        if not studies:
            raise IotuneError(f"no studies in {masked(store.url)}; run `iotune bench SPEC.yaml` or `iotune demo` first")
        records = []
        for record in studies:
            space = record.space
            if (record.settings or {}).get("source") == "iotune run":
                records.extend(show_runs(record, space, store.trials(study=record.name), fmt, terminal))
                continue
            found = store.trials(study=record.name)
            bests = best_per_workload(space, found)
            decisions = {_key(space, d.workload): d for d in decide_all(space, found)}
            if fmt != "table":
                records.extend({"study": record.name, **b.to_dict(),
                                "decision": decisions[_key(space, b.workload)].to_dict()} for b in bests)
                continue
            rows, noise = [], start_up_noise(found)
            for best in bests:
                decision = decisions[_key(space, best.workload)]
                rows.append([
                    _describe(best.workload, space),
                    _describe(_system(best.best.config, space), space) + "".join(
                        f" ({k} ran as {r})" for k, (_, r) in decision.not_in_effect.items()),
                    _spread(best.best.mean_time, best.best.std_time, best.best.n),
                    f"{best.best.mean_bandwidth:.0f}" if any(best.best.bandwidths) else "-",  # no bytes recorded
                    _vs_default(best, noise),
                    f"{best.speedup_vs_median:.2f}x",
                    f"{best.speedup_vs_worst:.2f}x",
                    best.configurations,
                    _sure(decision),
                ])
            terminal.emit(["workload", "best configuration", f"{measured_as(found)} (mean ± sd)", "MiB/s",
                           "vs default", "vs median", "vs worst", "configs", "how sure"], rows, "table",
                          title=f"study {record.name}: fastest configuration per workload")
            if bests and noise is not None:
                terminal.info(f"wall time of whole runs, start-up included: start-up alone can put two runs up to "
                              f"{noise:.3f} s apart on this machine (95%), so smaller differences are not gains")
            for decision in decisions.values():
                if decision.not_in_effect:
                    terminal.warn(f"{_describe(decision.workload, space)}: in the best configuration, "
                                  + not_in_effect_text(decision.not_in_effect))
            if bests:
                terminal.info(DEFAULT_MEANING + ("; not measured: the study never ran the default of that workload"
                                                 if any(b.speedup_vs_default is None for b in bests) else ""))
    runs = [r for r in records if "wall_mean_s" in r]
    records = [r for r in records if "wall_mean_s" not in r]
    if fmt != "table" and runs and not records:
        terminal.emit(list(runs[0]), [list(r.values()) for r in runs], fmt, records=runs)
        return
    if fmt == "json" and runs:
        records = records + runs
    if fmt != "table":
        columns = ["study", "workload", "best_config", "best_mean_time_s", "best_std_time_s", "best_repeats",
                   "best_mean_bandwidth_mib_s", "speedup_vs_default", "speedup_vs_median", "speedup_vs_worst",
                   "configurations"]
        rows = [[r["study"], r["workload"], {k: v for k, v in r["best"]["config"].items()},
                 r["best"]["mean_time_s"], r["best"]["std_time_s"], r["best"]["repeats"],
                 r["best"]["mean_bandwidth_mib_s"], r["speedup_vs_default"], r["speedup_vs_median"],
                 r["speedup_vs_worst"], r["configurations"]] for r in records]
        terminal.emit(columns, rows, fmt, records=records)


def show_runs(record, space, trials, fmt: str, terminal: Terminal) -> list[dict]:
    """Application runs (``iotune run``) per configuration: wall seconds, and I/O only where Darshan measured it."""
    groups: dict[str, list] = {}
    for trial in trials:
        groups.setdefault(trial.config_key, []).append(trial)
    out, rows = [], []
    for group in groups.values():
        done = [t for t in group if t.state == "COMPLETE"]
        walls = [t.wall_seconds for t in done if t.wall_seconds is not None]
        sources = [(t.extra or {}).get("phase_seconds_source") for t in done]
        io_source = "pmpi io time" if "pmpi io time" in sources else "darshan io time"  # one measure, never both
        io = [t for t, source in zip(done, sources, strict=True) if source == io_source]
        values = [((t.extra or {}).get("metric") or {}).get("value") for t in done
                  if (t.extra or {}).get("phase_seconds_source") == "metric"]
        metrics = [m for m in values if m is not None]
        io_s = [sum(p.seconds for p in t.phases) for t in io]
        io_bytes = [sum(p.bytes for p in t.phases) for t in io]
        wall_mean = statistics.fmean(walls) if walls else None
        entry = {"study": record.name, "configuration": group[0].config, "runs": len(done),
                 "failed": sum(1 for t in group if t.state == "FAILED"), "wall_mean_s": wall_mean,
                 "wall_std_s": statistics.stdev(walls) if len(walls) > 1 else None,
                 "io_mean_s": statistics.fmean(io_s) if io_s else None,
                 "io_mib_s": (sum(io_bytes) / MIB / sum(io_s)) if io_s and sum(io_s) > 0 and sum(io_bytes) else None,
                 "io_source": io_source if io else None, "metric_mean": statistics.fmean(metrics) if metrics else None}
        out.append(entry)
        rows.append([_describe(group[0].config, space), entry["runs"], entry["failed"],
                     "-" if wall_mean is None else f"{wall_mean:.3f}" + (
                         f" ± {entry['wall_std_s']:.3f}" if entry["wall_std_s"] is not None else ""),
                     "not measured (no Darshan log, no PMPI result)" if entry["io_mean_s"] is None
                     else f"{entry['io_mean_s']:.3f}",
                     "-" if entry["io_mib_s"] is None else f"{entry['io_mib_s']:.0f}",
                     "-" if entry["metric_mean"] is None else f"{entry['metric_mean']:.4g}"])
    if fmt == "table":
        terminal.emit(["configuration", "runs", "failed", "wall s (mean ± sd)", "I/O s (Darshan)", "I/O MiB/s",
                       "metric (mean, as printed)"], rows,
                      "table", title=f"study {record.name}: application runs (iotune run), wall time per configuration")
    return out


def results(study: str = STUDY, db: str = DB, fmt: str = FORMAT,
            trials: bool = typer.Option(False, "--trials", help="Every trial instead of the best per workload: "
                                        "the parameters that vary, repeat, state, write and read seconds and "
                                        "MiB/s (every stored column: iotune export FILE.csv).")) -> None:
    """Which configuration was fastest for which workload, by how much, and how much its repeats spread."""
    check_format(fmt)
    if trials:
        show_trials(db, study, fmt)
        return
    show_best(db, study, fmt)


def show_trials(db: str | None, study: str | None, fmt: str) -> None:
    """One row per trial: the parameters that vary, repeat, state, write and read seconds and MiB/s apart."""
    from iotune.cli.trial_table import trial_table
    from iotune.store import open_reader

    with open_reader(db) as store:
        records = _studies(store, study)
        spaces = {r.name: r.space for r in records}
        found = store.trials(study=study)
    columns, rows = trial_table(found, spaces)
    Terminal().emit(columns, rows, fmt, title=f"study {study}: every trial" if study else "every trial")
    if fmt == "table":
        Terminal().info("one row per trial (repeat); every stored column: iotune export FILE.csv")
