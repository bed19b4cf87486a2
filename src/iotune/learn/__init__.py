"""Learning from the store: datasets, trained models, evaluation and explanation (issue 3).

``dataset``: study -> X, y, groups.  ``training``: fit a predictor -> TrainedModel
(``Store.save_model`` / ``load_model`` persist it).  ``evaluation``: predictors
side by side (k-fold errors, leave-one-workload-out regret).  ``explanation``: CART
rules and importances per parameter.  ``train``, ``evaluate`` and ``explain``
load scikit-learn, so they are imported when first used.
"""

from iotune.lazy import lazy_exports
from iotune.learn.dataset import Dataset
from iotune.learn.errors import LearningError
from iotune.learn.model import TARGETS, TrainedModel

_LAZY = {
    "train": "iotune.learn.training",
    "evaluate": "iotune.learn.evaluation",
    "evaluate_dataset": "iotune.learn.evaluation",
    "PredictorScore": "iotune.learn.evaluation",
    "EVALUATED": "iotune.learn.evaluation",
    "explain": "iotune.learn.explanation",
    "Explanation": "iotune.learn.explanation",
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = ["EVALUATED", "TARGETS", "Dataset", "Explanation", "LearningError", "PredictorScore", "TrainedModel",
           "evaluate", "evaluate_dataset", "explain", "train"]
