"""``iotune train``, ``evaluate`` and ``explain``: learn from a study's measurements (issue 3)."""

from __future__ import annotations

from typing import Any

import typer

from iotune.cli.model_quality import REGRET_LEGEND, metric_label, metric_units, worse_than_mean
from iotune.cli.options import DB, FORMAT
from iotune.cli.terminal import Terminal, check_format

STUDY = typer.Option(None, "--study", "-s", help="Study to learn from (required).")
TARGET = typer.Option("time", "--target", "-t", help="What to predict: time, bandwidth, cost or relative.")
SEED = typer.Option(0, "--seed", help="Seed of the folds and of the randomised predictors.")


def _study(study: str | None) -> str:
    from iotune.learn import LearningError

    if not study:
        raise LearningError("--study is required; `iotune studies` lists them")
    return study


def _known(store, study: str, target: str, predictor: str | None = None):
    """The stored study; refuse an unknown study, target or predictor, or a study with nothing measured, before
    scikit-learn is imported (that takes seconds)."""
    from iotune.learn import TARGETS, LearningError
    from iotune.learn.registry import PERFORMANCE
    from iotune.stored import StoredStudy

    if target not in TARGETS:
        raise LearningError(f"unknown target {target!r}; choose one of: {', '.join(TARGETS)}")
    opened = StoredStudy.open(store, study)
    if predictor is not None and predictor not in PERFORMANCE:
        raise LearningError(f"unknown predictor {predictor!r}; choose one of: {', '.join(PERFORMANCE)}")
    if store.queue_counts(opened.id).get("COMPLETE", 0) == 0:
        raise LearningError(f"study {study!r} has no COMPLETE trials to learn from")
    return opened


LOG_TARGET = typer.Option(False, "--log-target", help="Fit regressors to log(target): I/O times span orders of "
                                                     "magnitude and a few very slow runs otherwise dominate.")


def _number(value, digits: int = 4):
    return None if value is None else round(value, digits) if isinstance(value, float) else value


def train(study: str = STUDY,
          predictor: str = typer.Option("cart", "--predictor", "-p", help="cart, rankboost, forest or linear."),
          target: str = TARGET,
          name: str = typer.Option(None, "--name", "-n", help="Model name (default: <predictor>-<target>); "
                                                              "an older model of that name is replaced."),
          phase: str = typer.Option(None, "--phase", help="Learn one phase's time (write or read) instead of all."),
          folds: int = typer.Option(5, "--folds", "-k", help="Cross-validation folds."),
          log_target: bool = LOG_TARGET, seed: int = SEED, db: str = DB, fmt: str = FORMAT) -> None:
    """Train a predictor on a study's COMPLETE trials, print its metrics and save it in the store."""
    study = _study(study)
    from iotune.store import Store

    check_format(fmt)
    terminal = Terminal()
    with Store(db, create=False) as store:
        opened = _known(store, study, target, predictor)
        from iotune.learn.model import save_model
        from iotune.learn.training import train as fit

        extra: dict[str, Any] = {"log_target": True} if log_target else {}  # the predictor's parameters
        model = fit(opened, predictor, target, name=name, phase=phase, cv_folds=folds, seed=seed, **extra)
        model_id = save_model(opened, model)
    dropped = model.metrics["dropped"]
    terminal.info(f"study {model.study}: {model.n_samples} samples"
                  + (f" ({dropped} trials dropped)" if dropped else "") + f", data hash {model.data_hash}")
    in_sample, cv = model.metrics["in_sample"], model.metrics["cv"]
    rows = [[metric_label(metric, model.target), _number(in_sample[metric]), _number(cv[metric])]
            for metric in in_sample]
    terminal.emit(["metric", "in-sample", f"cv ({model.metrics['cv_folds']} folds)"], rows, fmt,
                  title=f"{model.predictor_name} on {model.target}",
                  records=[{"model": model.name, "id": model_id, "study": model.study,
                            "predictor": model.predictor_name, "target": model.target, "samples": model.n_samples,
                            "dropped": dropped, "data_hash": model.data_hash, "metrics": model.metrics,
                            "metric_units": metric_units(model.target),
                            "worse_than_mean": worse_than_mean(model) is not None}])
    terminal.success(f"saved model {model.name!r} (id {model_id}) in study {model.study}")
    warning = worse_than_mean(model)
    if warning:
        terminal.warn(warning)


def evaluate(study: str = STUDY, target: str = TARGET,
             folds: int = typer.Option(5, "--folds", "-k", help="Cross-validation folds (fewer when fewer rows)."),
             log_target: bool = LOG_TARGET, seed: int = SEED, db: str = DB, fmt: str = FORMAT) -> None:
    """Compare cart, rankboost, forest, linear and random: k-fold errors and leave-one-workload-out regret."""
    study = _study(study)
    from iotune.cli.model_quality import TARGET_UNITS
    from iotune.store import open_reader

    check_format(fmt)
    with open_reader(db) as store:
        opened = _known(store, study, target)
        from iotune.learn.evaluation import PredictorScore
        from iotune.learn.evaluation import evaluate as score

        scores = score(opened, target, folds=folds, seed=seed, log_target=log_target)
    columns = list(PredictorScore.__dataclass_fields__)
    rows = [[_number(value) for value in s.to_dict().values()] for s in scores]
    unit = TARGET_UNITS.get(target, target)
    headers = {"mae": f"mae ({unit})", "rmse": f"rmse ({unit})", "mape": "mape %", "accuracy": "acc. % (100-MAPE)",
               "kendall_tau": "tau", "top1_mean": "top1 mean", "top1_max": "top1 max", "top3_mean": "top3 mean",
               "top3_max": "top3 max"}
    Terminal().emit(columns if fmt != "table" else [headers.get(c, c) for c in columns], rows, fmt,
                    title=f"study {study}: predictors of {target} ({folds}-fold CV; regret: leave one workload out)",
                    records=[s.to_dict() for s in scores])
    terminal = Terminal()
    terminal.info(REGRET_LEGEND)
    worse = [s.predictor for s in scores if s.r2 is not None and s.r2 < 0 and s.predictor != "random"]
    if worse:
        terminal.warn(f"{', '.join(worse)}: cross-validated R2 < 0, worse than predicting the mean on this study")


def explain(study: str = STUDY,
            model: str = typer.Option(None, "--model", "-m", help="A stored cart or forest model "
                                                                  "(default: fit both afresh)."),
            target: str = TARGET, seed: int = SEED, db: str = DB, fmt: str = FORMAT) -> None:
    """Which parameters matter most: the top rules of a CART tree and forest importances per parameter."""
    study = _study(study)
    from iotune.store import open_reader

    check_format(fmt)
    terminal = Terminal()
    with open_reader(db) as store:
        opened = _known(store, study, target)
        from iotune.learn.explanation import explain as describe

        explanation = describe(opened, model, target, seed)
        if model is not None:
            from iotune.learn.model import load_model

            warning = worse_than_mean(load_model(opened, model))
            if warning:
                terminal.warn(warning + "; its rules and importances describe noise")
    columns = ["parameter", "forest importance", "cart importance"]
    if fmt != "table":
        terminal.emit(["parameter", "forest_importance", "cart_importance"], explanation.importances, fmt,
                      records=[{"study": explanation.study, "target": explanation.target, "model": explanation.model,
                                "rules": explanation.rules, "most_important": explanation.most_important(),
                                "importances": [dict(zip(["parameter", "forest", "cart"], r, strict=True))
                                                for r in explanation.importances]}] if fmt == "json" else None)
        return
    terminal.out.print(f"CART rules for {explanation.target} (pruned tree, depth <= 4 shown):", markup=False)
    terminal.out.print(explanation.rules.rstrip(), markup=False, highlight=False)
    shown = [(name, f"{forest:.3f}", f"{cart:.3f}") for name, forest, cart in explanation.importances]
    terminal.emit(columns, shown, "table", title="importance per parameter (sums to 1)")
    top = explanation.most_important()
    terminal.out.print("parameters that matter most: " + (", ".join(top) if top else "none (the data are flat)"),
                       markup=False)
