"""Prior laid over candidates, and the small Gaussian process."""

import numpy as np
import pytest

from iotune.transfer import Prior
from iotune.transfer.gp import GaussianProcess
from iotune.transfer.prior import lay_over


def identity(rows):
    return np.asarray(rows, dtype=float) / 4.0


def test_matches_repeats_imputation_and_failures():
    candidates = np.array([[0.0], [1.0], [2.0], [4.0]])
    # workload 'a': candidate 1 twice (noise), candidate 2 failed, candidate 4 never run, a row off the grid
    prior = Prior(["a", "a", "a", "a", "a", "b", "b"],
                  [[0.0], [1.0], [1.0], [2.0], [3.0], [0.0], [4.0]],
                  [np.e, np.e**2 * 1.1, np.e**2 / 1.1, np.nan, np.e**3, 1.0, 2.0],
                  [False, False, False, True, False, False, False])
    matrix = lay_over(prior, candidates, identity)
    assert matrix.workloads == 2
    level = matrix.level[0]
    assert level[0] == pytest.approx(1.0) and level[1] == pytest.approx(2.0)
    assert matrix.failed[0].tolist() == [False, False, True, False]
    # the failed and the unmeasured candidates take their neighbours' values (x=1, 3 and 0, 1, 3)
    assert 2.0 <= level[2] <= 3.0 and 2.0 <= level[3] <= 3.0
    assert matrix.regret[0, 2] == np.inf and matrix.regret[0, 0] == 0.0
    np.testing.assert_allclose(matrix.shape.mean(axis=1), 0.0, atol=1e-12)
    assert matrix.noise == pytest.approx(np.log(1.1) * np.sqrt(2))  # one repeat pair, deviations +-log 1.1
    assert matrix.misfit is not None and matrix.misfit >= 0


def test_workloads_that_cannot_be_normalised_or_placed_are_left_out():
    candidates = np.array([[0.0], [1.0]])
    prior = Prior(["a", "b", "b", "c", "c"], [[0.0], [0.0], [1.0], [5.0], [6.0]], [1.0, 1.0, np.nan, 2.0, 3.0],
                  [False, False, True, False, False])
    matrix = lay_over(prior, candidates, identity)
    # a: one run; b: one success; c: never ran a candidate (another workload kind, other settings)
    assert matrix.workloads == 0 and matrix.misfit is None


def test_prior_from_a_table_leaves_the_target_out(tmp_path):
    from iotune.transfer import Feature, TableSpec, load_table

    path = tmp_path / "t.csv"
    path.write_text("w,c,t\na,x,1\na,y,2\nb,x,3\nb,y,4\n")
    table = load_table(TableSpec("t", path, (Feature("w"),), (Feature("c"),), {"time": "t"}))
    prior = Prior.from_table(table, "time", exclude=[0])
    assert sorted(prior.values.tolist()) == [3.0, 4.0]
    assert prior.workload_features.shape == (2, 2)


def test_gp_interpolates_and_knows_its_loo_error():
    rng = np.random.default_rng(0)
    X = rng.random((10, 2))
    y = np.sin(3 * X[:, 0]) + X[:, 1]
    gp = GaussianProcess().fit(X, y)
    mean, std = gp.predict(X)
    np.testing.assert_allclose(mean, y, atol=0.05)
    far_mean, far_std = gp.predict(np.array([[5.0, 5.0]]))
    assert far_std[0] > 5 * std.max()
    brute = []
    for i in range(10):
        keep = np.arange(10) != i
        single = GaussianProcess(length_scales=(gp.length_scale_ / (np.sqrt(2) / 2),), noise_shares=(1e-4,))
        brute.append((single.fit(X[keep], y[keep]).predict(X[[i]])[0][0] - y[i]) ** 2)
    assert gp.loo_squared_error() == pytest.approx(np.mean(brute), rel=0.5)


def test_gp_floors_hold_with_one_point():
    gp = GaussianProcess(noise_floor=0.01, variance_floor=0.25).fit(np.array([[0.5]]), np.array([2.0]))
    mean, std = gp.predict(np.array([[0.5], [3.0]]))
    assert mean[1] == pytest.approx(2.0)
    assert std[1] == pytest.approx(0.5, rel=0.05)
