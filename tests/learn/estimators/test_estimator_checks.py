"""scikit-learn's shared estimator checks on iotune's own predictors."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from iotune.learn.estimators.pruned_tree import PrunedTree
from iotune.learn.estimators.rankboost import RankBoost


@parametrize_with_checks([RankBoost(), PrunedTree()])
def test_sklearn_estimator_contract(estimator, check):
    check(estimator)
