"""``iotune variability map|evaluate|plan``: run-to-run spread of a study's configurations (issue 4; paper 003)."""

from __future__ import annotations

import typer

from iotune.cli.options import DB, FORMAT
from iotune.cli.terminal import Terminal, check_format

app = typer.Typer(help="Run-to-run variability: maps, Table-2 evaluation, runs needed "
                       "(MOANA: Cameron et al. 2019, paper 003).",
                  no_args_is_help=True)

STUDY = typer.Option(None, "--study", "-s", help="Study whose repeated runs to analyse (required).")
TARGET = typer.Option("std", "--target", "-t", help="Spread measure: std, cv, mean or q95 (seconds; cv unitless).")
PER_CATEGORY = typer.Option(True, "--per-category/--single-map",
                            help="One map per combination of categorical parameters (paper 003), or one map.")


def _number(value, digits: int = 4):
    return round(value, digits) if isinstance(value, float) else value


def _load(db, study: str | None, runs: int = 2):
    from iotune.store import open_reader
    from iotune.stored import StoredStudy
    from iotune.variability.errors import VariabilityError
    from iotune.variability.repeats import Repeats

    if not study:
        raise VariabilityError("--study is required; `iotune studies` lists them")
    with open_reader(db) as store:
        repeats = Repeats.from_study(StoredStudy.open(store, study))
    kept = repeats.require_repeats(runs)
    if len(kept) < len(repeats):
        Terminal().warn(f"{len(repeats) - len(kept)} of {len(repeats)} configurations have fewer than {runs} "
                        "repeats and are left out")
    return kept


def _describe_config(space, config: dict) -> str:
    return " ".join(f"{p.name}={p.format(config[p.name])}" for p in space.parameters if config.get(p.name) is not None)


@app.command("map")
def map_(study: str = STUDY, target: str = TARGET,
         predictor: str = typer.Option("lsp", "--predictor", "-p", help="lsp, mars, delaunay or linear."),
         per_category: bool = PER_CATEGORY, db: str = DB, fmt: str = FORMAT) -> None:
    """Per configuration: runs, mean, sd, cv, quantiles and bimodality; then the fitted map's in-sample error."""
    from iotune.variability.maps import VariabilityMap
    from iotune.variability.spread import describe

    check_format(fmt)
    terminal = Terminal()
    repeats = _load(db, study, 1 if target == "mean" else 2)
    fitted = VariabilityMap(target, predictor, per_category).fit(repeats)
    predicted = fitted.predict(repeats.configs)
    columns = ["configuration", "n", "mean_s", "std_s", "cv", "q05_s", "q50_s", "q95_s", "bimodality", "bimodal",
               f"map_{target}"]
    rows, records = [], []
    for config, key, times, guess in zip(repeats.configs, repeats.config_keys, repeats.times, predicted, strict=True):
        s = describe(times)
        rows.append([_describe_config(repeats.space, config), s.n, _number(s.mean), _number(s.std), _number(s.cv),
                     _number(s.q05), _number(s.q50), _number(s.q95), _number(s.bimodality),
                     bool(s.bimodal), _number(float(guess))])
        records.append({"config_key": key, "config": config, **s.to_dict(), f"map_{target}": float(guess)})
    terminal.emit(columns, rows, fmt, title=f"study {repeats.study}: spread of the runs (seconds)",
                  records=records if fmt == "json" else None)
    over = ", ".join(fitted.coordinates_) or "no coordinate"
    terminal.info(f"{predictor} map of {target}: {len(fitted.maps_)} map(s) over {over}; "
                  f"in-sample average relative error (ARE) {fitted.in_sample_are_:.2%}; "
                  f"{sum(1 for r in records if r['bimodal'])} bimodal configuration(s) (Sarle b > 5/9)")


@app.command("evaluate")
def evaluate(study: str = STUDY, target: str = TARGET,
             repeats: int = typer.Option(200, "--repeats", "-B", help="Random splits per training proportion."),
             seed: int = typer.Option(0, "--seed", help="Seed of the random splits."),
             per_category: bool = PER_CATEGORY, db: str = DB, fmt: str = FORMAT) -> None:
    """Table 2 of MOANA (Cameron et al. 2019, paper 003): average relative error (ARE) of lsp, mars, delaunay and
    linear maps against the training share."""
    from iotune.learn.registry import VARIABILITY as PREDICTORS

    check_format(fmt)
    data = _load(db, study, 1 if target == "mean" else 2)
    from iotune.variability.evaluation import evaluate as score  # scikit-learn: seconds; after the study is found
    rows = score(data, target, per_category, n_repeats=repeats, seed=seed)
    columns = ["train", "test"] + [f"{name} ARE %" for name in PREDICTORS] + ["failed fits"]
    table = [[r.train_proportion, r.test_proportion] + [_number(100 * r.are[name], 2) for name in PREDICTORS]
             + [", ".join(f"{k} {v}" for k, v in r.failed.items() if v) or "0"] for r in rows]
    if fmt != "table":
        records = [r.to_dict() for r in rows]
        columns, table = list(records[0]), [list(r.values()) for r in records]
    Terminal().emit(columns, table, fmt,
                    title=f"study {data.study}: ARE of {target} maps, B = {repeats} splits, "
                          f"averaged over {max(rows[0].maps.values())} map(s)")
    Terminal().info("ARE: average relative error |predicted - measured| / measured over the held-out "
                    "configurations (MOANA: Cameron et al. 2019, paper 003, Table 2); null: no map could be fitted")


@app.command("plan")
def plan(study: str = STUDY,
         rel_width: float = typer.Option(0.05, "--rel-width", help="Target half-width of the mean's interval, "
                                                                    "as a fraction of the mean."),
         confidence: float = typer.Option(0.95, "--confidence", help="Confidence level in (0, 1)."),
         seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap."),
         db: str = DB, fmt: str = FORMAT) -> None:
    """Per configuration: runs so far, relative half-width (t and bootstrap), runs needed, extra seconds."""
    from iotune.variability.planner import RepeatPlanner

    check_format(fmt)
    planner = RepeatPlanner(rel_width, confidence, seed=seed)
    planner.runs_for_cv(0.0)
    data = _load(db, study)
    columns = ["configuration", "n", "mean_s", "t_rel_half_width", "boot_rel_half_width", "runs_needed",
               "extra_runs", "extra_s"]
    rows, records = [], []
    for config, key, times in zip(data.configs, data.config_keys, data.times, strict=True):
        p = planner.plan(times)
        row = [_describe_config(data.space, config), p.n, _number(p.mean_seconds),
               _number(p.t_interval.relative_half_width), _number(p.bootstrap_interval.relative_half_width),
               p.runs_needed, p.extra_runs, _number(p.extra_seconds, 2)]
        rows.append(row)
        records.append({"config_key": key, "config": config, **dict(zip(columns[1:], row[1:], strict=True))})
    terminal = Terminal()
    terminal.emit(columns, rows, fmt, title=f"study {data.study}: runs for +/-{rel_width:.1%} at {confidence:.0%}",
                  records=records if fmt == "json" else None)
    total = sum(r[-1] for r in rows)
    terminal.info(f"{sum(r[-2] for r in rows)} more runs in all, about {total:.1f} s")
