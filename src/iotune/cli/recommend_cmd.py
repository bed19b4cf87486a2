"""``iotune recommend``: the best system configurations for a workload, from a trained model (paper 000,
Algorithm 1)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import typer

from iotune.cli.decision_view import hint_forms, prepare_hints_dir, write_hints_files
from iotune.cli.options import DB, DEFAULT_MEANING, FORMAT
from iotune.cli.terminal import Terminal, check_format
from iotune.errors import IotuneError

__all__ = ["apply_lines", "hint_forms", "prepare_hints_dir", "recommend", "run_recommend"]


def load_trained(db: str | None, study: str, name: str | None):
    """The study's space and its trained model ``name`` (default: its newest)."""
    from iotune.learn.model import load_model
    from iotune.store import open_reader
    from iotune.stored import StoredStudy

    with open_reader(db) as store:
        opened = StoredStudy.open(store, study)
        return opened.space, load_model(opened, name)


def ranked_by_placement(db: str | None, study: str, name: str, values: dict, objective: str, top: int,
                        fmt: str) -> bool:
    """When ``name`` is a placement model (``iotune model striping --calibrate``), rank the study's layouts for the
    workload with it and return True; False for any other model."""
    from iotune.analytic.striped_study import is_placement_model, load_model, rank_layouts
    from iotune.cli.model_cmd import show_ranked
    from iotune.store import Store
    from iotune.stored import StoredStudy

    with Store(db, create=False) as store:
        if not is_placement_model(store, study, name):
            return False
        if objective != "time":
            raise IotuneError(f"model {name!r} is a placement model: it predicts time only, not {objective}")
        opened = StoredStudy.open(store, study)
        ranked = rank_layouts(load_model(store, study, name), opened.space, opened.spec.benchmark, values)
    show_ranked(Terminal(), ranked, values, top, fmt)
    return True


def apply_lines(candidate, directory: str = "DIR") -> dict:
    """The four ways to apply a candidate's hints, as exact strings."""
    return hint_forms(candidate.hints, directory)


def with_spread(result, db: str | None, study: str):
    """``result`` with each candidate's spread and the separation verdict from ``study``'s repeats."""
    from iotune.recommend.uncertainty import attach_spread
    from iotune.store import open_reader
    from iotune.stored import StoredStudy

    with open_reader(db) as store:
        return attach_spread(result, StoredStudy.open(store, study))


CO_CHAMPIONS = ("co-champions: configurations whose predicted value ties the best one (a tree model predicts one "
                "value per leaf, so several configurations can share it); the model cannot tell them apart, and the "
                "measured spread (Cameron et al. 2019, paper 003) says whether runs can")


def default_named(value):
    """``value`` with "baseline" in its keys said as "default", the one word iotune uses (issue 12, item 5)."""
    if isinstance(value, dict):
        return {key.replace("baseline", "default"): default_named(v) for key, v in value.items()}
    if isinstance(value, list):
        return [default_named(v) for v in value]
    return value


def run_recommend(model, workload: dict, objective: str = "time", top: int = 3, pricing: Path | None = None,
                  hints_dir: Path | None = None, fmt: str = "table", constraints: list[str] | tuple = (),
                  space=None, db: str | None = None, study: str | None = None, spread: bool = True):
    """Compute and print a recommendation from a :class:`~iotune.learn.TrainedModel`; returns it.

    With ``study`` (in store ``db``) and ``spread``, each candidate also shows
    the run-to-run spread of its time and whether the top ones can be told
    apart (:func:`~iotune.recommend.uncertainty.attach_spread`, paper 003).
    """
    from iotune.recommend import CostModel, Recommender
    from iotune.recommend.uncertainty import spread_label

    check_format(fmt)
    terminal = Terminal()
    directory = prepare_hints_dir(hints_dir) if hints_dir is not None else None
    cost_model = CostModel.from_yaml(pricing) if pricing else None
    from iotune.cli.model_quality import worse_than_mean

    warning = worse_than_mean(model)
    if warning:
        terminal.warn(warning + "; these recommendations are not to be trusted")
    result = Recommender(model, cost_model, space=space).recommend(workload, objective, top, constraints=constraints)
    if spread and study is not None:
        result = with_spread(result, db, study)
    system = [p for p in model.space.system_parameters]
    records, rows = [], []
    for candidate in result.candidates:
        described = " ".join(f"{p.name}={p.format(candidate.configuration[p.name])}" for p in system
                             if candidate.configuration[p.name] is not None) or "-"
        lines = apply_lines(candidate)
        records.append({**asdict(candidate), "apply": lines})
        row = [candidate.rank, described, f"{candidate.predicted:.6g}", f"{candidate.improvement_vs_baseline:.2f}x",
               f"{candidate.improvement_vs_median:.2f}x", lines["mpich_mpiio_hints"] or "-"]
        if result.separation is not None:
            row.insert(3, spread_label(candidate.spread))
        rows.append(row)
    if fmt == "json":
        terminal.emit([], [], "json", records=default_named({**result.to_dict(), "candidates": records}))
    else:
        columns = ["rank", "configuration", f"predicted {objective} ({result.unit})", "vs default", "vs median",
                   "MPICH_MPIIO_HINTS"]
        if result.separation is not None:
            columns.insert(3, "spread of time")
        terminal.emit(columns, rows, fmt, title=f"{objective} for {' '.join(f'{k}={v}' for k, v in workload.items())}")
    if result.separation is not None and (result.separation.message or result.separation.reason):
        terminal.info(result.separation.message or f"spread: {result.separation.reason}")
    terminal.info(f"{result.evaluated} candidate configurations scored; the default predicts "
                  f"{result.baseline_predicted:.6g} {result.unit}, median {result.median:.6g} {result.unit}; "
                  f"{result.co_champions} co-champion(s) tie the best prediction")
    terminal.info(DEFAULT_MEANING + "; " + CO_CHAMPIONS)
    if directory is not None:
        write_hints_files(directory, records, result.workload.get("processes", "N"), terminal)
    return result


def recommend(
    study: str = typer.Option(..., "--study", "-s", help="Study whose trained model to use."),
    workload: str = typer.Option(None, "--workload", "-w", help="The workload: name=value pairs "
                                 "(transfer_size=4MiB,collective=true), a workload YAML file (as iotune profile "
                                 "--format yaml writes), a Darshan log or an IOR command line."),
    workload_file: Path = typer.Option(None, "--workload-file", hidden=True, help="Older form of --workload FILE."),
    objective: str = typer.Option("time", "--objective",
                                  help="time, bandwidth or cost (Zhai et al. 2015, paper 000, Eq. 2)."),
    top: int = typer.Option(3, "--top", help="How many configurations to report."),
    model: str = typer.Option(None, "--model", help="Answer from this trained model's predictions instead of the "
                              "measurements (the cost and bandwidth objectives always use the study's latest model)."),
    pricing: Path = typer.Option(None, "--pricing", help="Pricing YAML (default: illustrative 2013 EC2 prices)."),
    hints_dir: Path = typer.Option(None, "--hints-dir", help="Write one ROMIO hints file per recommendation here."),
    constraint: list[str] = typer.Option([], "--constraint", help="Extra constraint on candidates (repeatable)."),
    no_spread: bool = typer.Option(False, "--no-spread", help="Skip the run-to-run spread and the separation verdict."),
    fmt: str = FORMAT,
    db: str = DB,
) -> None:
    """The best system configuration for a workload, how sure that is, and how to apply it.

    A measured workload is answered from its runs (the tied set when the runs cannot separate the best); an
    unmeasured one from the other workloads' runs when that prediction held on them, else with the
    `iotune tune` command to measure it."""
    check_format(fmt)
    from iotune.profile import workload_values_from

    if (workload is None) == (workload_file is None):
        raise IotuneError("give the workload with --workload (name=value pairs, a workload file, a Darshan log or "
                          "an IOR command line)")
    values, _ = workload_values_from(workload if workload is not None else workload_file)
    if model is None and objective == "time":
        from iotune.cli.decision_view import run_decision

        run_decision(db, study, values, top, hints_dir, fmt, constraint)
        return
    if model is not None and ranked_by_placement(db, study, model, values, objective, top, fmt):
        return
    space, trained = load_trained(db, study, model)
    run_recommend(trained, values, objective, top, pricing, hints_dir, fmt, constraint, space=space, db=db,
                  study=study, spread=not no_spread)
