"""scikit-learn's shared estimator checks on iotune's own predictors."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from iotune.models import PrunedTree, RankBoost


@parametrize_with_checks([RankBoost(), PrunedTree()])
def test_sklearn_estimator_contract(estimator, check):
    check(estimator)
