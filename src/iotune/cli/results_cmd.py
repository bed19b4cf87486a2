"""``iotune results``: the best configuration per workload, with the spread of its repeats."""

from __future__ import annotations

import typer

from iotune.cli.options import DB, FORMAT, STUDY
from iotune.cli.terminal import Terminal, check_format
from iotune.errors import IotuneError
from iotune.units import format_size


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


def show_best(db: str | None, study: str | None, fmt: str) -> None:
    from iotune.analysis import best_per_workload
    from iotune.space import Space
    from iotune.store import Store

    terminal = Terminal()
    with Store(db) as store:
        studies = [store.get_study(study)] if study else store.list_studies()
        if study and studies[0] is None:
            raise IotuneError(f"no study named {study!r} in {store.url}")
        if not studies:
            raise IotuneError(f"no studies in {store.url}; run `iotune bench SPEC.yaml` or `iotune demo` first")
        records = []
        for record in studies:
            space = Space.from_text(record.space_yaml, source=f"study {record.name}")
            bests = best_per_workload(space, store.trials(study=record.name))
            if fmt != "table":
                records.extend({"study": record.name, **b.to_dict()} for b in bests)
                continue
            rows = []
            for best in bests:
                rows.append([
                    _describe(best.workload, space),
                    _describe(_system(best.best.config, space), space),
                    f"{best.best.mean_time:.3f} ± {best.best.std_time:.3f} (n={best.best.n})",
                    f"{best.best.mean_bandwidth:.0f}",
                    f"{best.speedup_vs_default:.2f}x" if best.speedup_vs_default else "not measured",
                    f"{best.speedup_vs_median:.2f}x",
                    f"{best.speedup_vs_worst:.2f}x",
                    best.configurations,
                ])
            terminal.emit(["workload", "best configuration", "I/O time s (mean ± sd)", "MiB/s",
                           "vs default", "vs median", "vs worst", "configs"], rows, "table",
                          title=f"study {record.name}: fastest configuration per workload")
    if fmt != "table":
        columns = ["study", "workload", "best_config", "best_mean_time_s", "best_std_time_s", "best_repeats",
                   "best_mean_bandwidth_mib_s", "speedup_vs_default", "speedup_vs_median", "speedup_vs_worst",
                   "configurations"]
        rows = [[r["study"], r["workload"], {k: v for k, v in r["best"]["config"].items()},
                 r["best"]["mean_time_s"], r["best"]["std_time_s"], r["best"]["repeats"],
                 r["best"]["mean_bandwidth_mib_s"], r["speedup_vs_default"], r["speedup_vs_median"],
                 r["speedup_vs_worst"], r["configurations"]] for r in records]
        terminal.emit(columns, rows, fmt, records=records)


def results(study: str = STUDY, db: str = DB, fmt: str = FORMAT,
            trials: bool = typer.Option(False, "--trials", help="Every trial and phase instead of the best per "
                                                                "workload (the raw data, one row per phase).")) -> None:
    """Which configuration was fastest for which workload, by how much, and how much its repeats spread."""
    check_format(fmt)
    if trials:
        from iotune.store import Store

        with Store(db) as store:
            if study and store.get_study(study) is None:
                raise IotuneError(f"no study named {study!r} in {store.url}")
            rows = store.rows(study=study)
        columns = list(dict.fromkeys(k for row in rows for k in row))
        Terminal().emit(columns, [[row.get(c) for c in columns] for row in rows], fmt, records=rows)
        return
    show_best(db, study, fmt)
