"""Predictors side by side on one study: k-fold errors and leave-one-workload-out regret.

The table of issue 3, part 6: cart, rankboost, forest, linear and a seeded
``random`` baseline.  What matters most for a tuner is the regret columns
(paper 000 Sec. 5 judges its models by the measured speed of the
configuration they pick); see :mod:`iotune.learn.scoring` for definitions.
Deterministic for a seed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from iotune.learn.dataset import Dataset
from iotune.learn.errors import LearningError
from iotune.learn.registry import PERFORMANCE as PREDICTORS
from iotune.learn.scoring import cross_validate, workload_regret
from iotune.stored import StoredStudy

EVALUATED = ("cart", "rankboost", "forest", "linear", "random")


@dataclass(frozen=True)
class PredictorScore:
    """One row of the evaluation: None where a metric does not apply or cannot be computed.

    ``mae``/``rmse`` in the target's unit, ``mape`` and ``accuracy`` (= 100 -
    MAPE) in percent, regrets as fractions, ``workloads`` the number held out.
    """

    predictor: str
    mae: float | None
    rmse: float | None
    r2: float | None
    mape: float | None
    accuracy: float | None
    kendall_tau: float | None
    top1_mean: float | None
    top1_max: float | None
    top3_mean: float | None
    top3_max: float | None
    workloads: int | None

    def to_dict(self) -> dict:
        return asdict(self)


def evaluate_dataset(dataset: Dataset, predictors=EVALUATED, folds: int = 5, seed: int = 0,
                     log_target: bool = False) -> list[PredictorScore]:
    """Score each predictor on ``dataset`` (k-fold with ``min(folds, n)`` folds; regret at top-1 and top-3)."""
    if folds < 2:
        raise LearningError(f"--folds must be at least 2, got {folds}")
    unknown = [p for p in predictors if p != "random" and p not in PREDICTORS]
    if unknown:
        raise LearningError(f"unknown predictor {unknown[0]!r}; choose from: {', '.join(EVALUATED)}")
    scores = []
    for name in predictors:
        metrics: dict[str, Any] = {**cross_validate(name, dataset, folds, seed, log_target=log_target),
                                   **workload_regret(name, dataset, 3, seed, log_target=log_target)}
        scores.append(PredictorScore(predictor=name, **metrics))  # floats, and the int count of workloads
    return scores


def evaluate(study: StoredStudy, target: str = "time", predictors=EVALUATED, folds: int = 5, seed: int = 0,
             phase: str | None = None, log_target: bool = False) -> list[PredictorScore]:
    """:func:`evaluate_dataset` on the COMPLETE trials of ``study`` for ``target`` (regressors on log(y) if asked)."""
    return evaluate_dataset(Dataset.from_study(study, target, phase=phase), predictors, folds, seed,
                            log_target)
