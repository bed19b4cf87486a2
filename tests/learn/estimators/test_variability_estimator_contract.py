"""scikit-learn's estimator checks for every variability predictor."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from iotune.learn.estimators.delaunay import DelaunayInterpolator
from iotune.learn.estimators.lsp import LinearShepard
from iotune.learn.estimators.mars import Mars


@parametrize_with_checks([LinearShepard(), DelaunayInterpolator(), Mars()])
def test_sklearn_contract(estimator, check):
    check(estimator)
