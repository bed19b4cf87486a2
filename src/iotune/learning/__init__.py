"""Learning from the store: datasets, trained models, evaluation and explanation (issue 3).

``dataset``: study -> X, y, groups.  ``training``: fit a predictor -> TrainedModel
(``Store.save_model`` / ``load_model`` persist it).  ``evaluation``: predictors
side by side (k-fold errors, leave-one-workload-out regret).  ``explanation``: CART
rules and importances per parameter.  ``train``, ``evaluate`` and ``explain``
load scikit-learn, so they are imported when first used.
"""

from iotune.learning.dataset import Dataset
from iotune.learning.errors import LearningError
from iotune.learning.model import TARGETS, TrainedModel

_LAZY = {
    "train": "iotune.learning.training",
    "evaluate": "iotune.learning.evaluation",
    "evaluate_dataset": "iotune.learning.evaluation",
    "PredictorScore": "iotune.learning.evaluation",
    "EVALUATED": "iotune.learning.evaluation",
    "explain": "iotune.learning.explanation",
    "Explanation": "iotune.learning.explanation",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'iotune.learning' has no attribute {name!r}")


__all__ = ["EVALUATED", "TARGETS", "Dataset", "Explanation", "LearningError", "PredictorScore", "TrainedModel",
           "evaluate", "evaluate_dataset", "explain", "train"]
