"""Error and ranking metrics, on hand-made examples."""

import numpy as np
import pytest

from iotune.learn.errors import PredictorError
from iotune.learn.metrics import average_relative_error, kendall_tau, mae, mape, r2, rmse, top_k_regret

TRUE = [1.0, 2.0, 4.0]
PRED = [2.0, 2.0, 1.0]  # errors 1, 0, -3


def test_errors_by_hand():
    assert mae(TRUE, PRED) == pytest.approx(4 / 3)
    assert rmse(TRUE, PRED) == pytest.approx(np.sqrt(10 / 3))
    assert mape(TRUE, PRED) == pytest.approx(100 * (1 + 0 + 0.75) / 3)
    assert average_relative_error(TRUE, PRED) == pytest.approx((1 + 0 + 0.75) / 3)
    # mean 7/3; SS_tot = 16/9 + 1/9 + 25/9 = 42/9; SS_res = 10.
    assert r2(TRUE, PRED) == pytest.approx(1 - 10 / (42 / 9))


def test_r2_of_constant_target():
    assert r2([3.0, 3.0], [3.0, 3.0]) == 1.0
    assert r2([3.0, 3.0], [3.0, 4.0]) == 0.0


def test_one_relative_error_refuses_zero_targets_unless_told_to_skip_them():
    with pytest.raises(PredictorError, match="y_true contains zeros"):
        mape([0.0, 1.0], [1.0, 1.0])
    with pytest.raises(PredictorError, match="y_true contains zeros"):
        average_relative_error([0.0, 1.0], [1.0, 1.0])
    assert mape([-2.0], [-1.0]) == pytest.approx(50.0)
    assert average_relative_error([-2.0], [-1.0]) == pytest.approx(0.5)
    assert average_relative_error([0.0, 2.0], [5.0, 3.0], skip_zero=True) == pytest.approx(0.5)
    assert np.isnan(average_relative_error([0.0], [5.0], skip_zero=True))


def test_kendall_tau_by_hand():
    assert kendall_tau([1, 2, 3, 4], [10, 20, 30, 40]) == 1.0
    assert kendall_tau([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    # pairs: (1,2)+ (1,3)+ (1,4)+ (2,3)- (2,4)+ (3,4)+ -> (5 - 1) / 6
    assert kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)
    assert kendall_tau([1, 2, 3], [5, 5, 5]) == 0.0


@pytest.mark.parametrize("metric", [mae, rmse, r2, mape, average_relative_error, kendall_tau])
def test_inputs_are_checked(metric):
    with pytest.raises(PredictorError, match="1-D of one non-zero length"):
        metric([1.0, 2.0], [1.0])
    with pytest.raises(PredictorError, match="finite"):
        metric([1.0, np.nan], [1.0, 2.0])


def test_top_k_regret_by_hand():
    groups = ["a", "a", "a", "a", "b", "b", "b"]
    times = [10.0, 12.0, 20.0, 15.0, 5.0, 4.0, 8.0]
    preds = [3.0, 1.0, 2.0, 4.0, 1.0, 3.0, 2.0]
    # a: order by pred -> 12, 20, 10, 15; best 10.  b: 5, 8, 4; best 4.
    top2 = top_k_regret(groups, times, preds, k=2)
    assert top2.groups.tolist() == ["a", "b"]
    np.testing.assert_allclose(top2.top1, [0.2, 0.25])
    np.testing.assert_allclose(top2.topk, [0.2, 0.25])
    top3 = top_k_regret(groups, times, preds, k=3)
    np.testing.assert_allclose(top3.topk, [0.0, 0.0])
    assert top3.mean_top1 == pytest.approx(0.225)
    assert top3.mean_topk == 0.0


def test_top_k_regret_perfect_and_small_groups():
    r = top_k_regret([1, 1, 2], [3.0, 6.0, 7.0], [0.0, 1.0, 9.0], k=5)
    np.testing.assert_allclose(r.top1, [0.0, 0.0])
    np.testing.assert_allclose(r.topk, [0.0, 0.0])


def test_top_k_regret_ties_are_pessimistic():
    r = top_k_regret([0, 0, 0], [1.0, 3.0, 2.0], [7.0, 7.0, 7.0], k=2)
    assert r.top1.tolist() == [2.0]  # picked 3.0 against best 1.0
    assert r.topk.tolist() == [1.0]  # best of {3.0, 2.0}


def test_top_k_regret_checks_inputs():
    with pytest.raises(PredictorError, match="k must be an integer >= 1; got 0"):
        top_k_regret([0], [1.0], [1.0], k=0)
    with pytest.raises(PredictorError, match="times > 0"):
        top_k_regret([0], [0.0], [1.0])
    with pytest.raises(PredictorError, match="groups must have shape"):
        top_k_regret([0, 1], [1.0], [1.0])
