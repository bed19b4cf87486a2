"""scikit-learn's estimator checks for every variability predictor."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from iotune.variability import DelaunayInterpolator, LinearShepard, Mars


@parametrize_with_checks([LinearShepard(), DelaunayInterpolator(), Mars()])
def test_sklearn_contract(estimator, check):
    check(estimator)
