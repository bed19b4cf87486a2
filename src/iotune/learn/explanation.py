"""Which parameters matter: a CART tree's top rules and random-forest importances per parameter.

Paper 000 Sec. 5: "the CART tree ... can also help users to understand the
relative importance of input parameters".  The rules are scikit-learn's
``export_text`` of the pruned tree with the encoder's feature names (at most
``MAX_DEPTH`` levels of conditions shown; deeper branches say "truncated").  Importances are impurity-based
(they sum to 1) and the columns of one parameter (one-hot levels, ``:active``) are summed.
"""

from __future__ import annotations

from dataclasses import dataclass

from sklearn.tree import DecisionTreeRegressor, export_text

from iotune.learn.dataset import Dataset
from iotune.learn.errors import LearningError
from iotune.learn.model import load_model
from iotune.learn.scoring import build
from iotune.stored import StoredStudy

MAX_DEPTH = 4


@dataclass(frozen=True)
class Explanation:
    """``rules``: the tree as text; ``importances``: (parameter, forest, cart) rows, most important first."""

    study: str
    target: str
    rules: str
    importances: list[tuple[str, float, float]]
    model: str | None = None

    def most_important(self, n: int = 3) -> list[str]:
        """Names of the ``n`` parameters with the highest forest importance (those above zero)."""
        return [name for name, forest, _ in self.importances[:n] if forest > 0]


def parameter_of(feature: str) -> str:
    """The parameter an encoder column belongs to: ``log2(x)``, ``x=level``, ``x:active`` and ``x`` give ``x``."""
    if feature.startswith("log2(") and feature.endswith(")"):
        return feature[5:-1]
    return feature.split("=", 1)[0].split(":", 1)[0]


def per_parameter(space, feature_names, importances) -> dict[str, float]:
    """Column importances summed per parameter, in the space's order (zero for unused parameters)."""
    totals = dict.fromkeys((p.name for p in space.parameters), 0.0)
    for feature, value in zip(feature_names, importances, strict=True):
        totals[parameter_of(feature)] += float(value)
    return totals


def explain(study: StoredStudy, model: str | None = None, target: str = "time", seed: int = 0) -> Explanation:
    """Rules and importances for ``study``: from stored model ``model`` when given, else freshly fitted.

    A stored cart model gives the rules and the cart importances, a forest model
    the forest importances; the other one is fitted on the same target.  Other
    predictors cannot be explained this way (LearningError).
    """
    stored = None
    if model is not None:
        stored = load_model(study, model)
        if stored.predictor_name not in ("cart", "forest"):
            raise LearningError(
                f"model {model!r} is a {stored.predictor_name} model; explain needs a cart or forest model"
            )
        target = stored.target
    options = stored.dataset_options if stored else {}
    dataset = Dataset.from_study(study, target, categorical=stored.categorical if stored else "onehot",
                                 **options)
    # a model fitted on log(target) wraps its regressor (sklearn's TransformedTargetRegressor)
    fitted = {stored.predictor_name: getattr(stored.estimator, "regressor_", stored.estimator)} if stored else {}
    for name in ("cart", "forest"):
        if name not in fitted:
            fitted[name] = build(name, dataset, seed).fit(dataset.X, dataset.y)
    tree = fitted["cart"].estimator_ if hasattr(fitted["cart"], "estimator_") else fitted["cart"]
    if not isinstance(tree, DecisionTreeRegressor):
        raise LearningError(f"cart model {model!r} holds no decision tree")
    names = list(dataset.feature_names)
    rules = export_text(tree, feature_names=names, max_depth=MAX_DEPTH - 1, decimals=3)
    forest = per_parameter(dataset.space, names, fitted["forest"].feature_importances_)
    cart = per_parameter(dataset.space, names, tree.feature_importances_)
    order = sorted(forest, key=lambda p: (-forest[p], -cart[p], p))
    rows = [(p, float(forest[p]), float(cart[p])) for p in order]  # rounded where shown, so they still sum to 1
    return Explanation(study=dataset.study, target=target, rules=rules, importances=rows,
                       model=stored.name if stored else None)
