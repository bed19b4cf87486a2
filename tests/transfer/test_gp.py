"""The tuner's Gaussian process: a fit that no kernel matrix allows is a TransferError, not a TypeError."""

import numpy as np
import pytest

from iotune.transfer.errors import TransferError
from iotune.transfer.gp import GaussianProcess


def test_a_fit_whose_every_kernel_matrix_is_singular_says_so():
    # A negative noise share makes K0 + noise indefinite: every Cholesky factorisation fails.
    gp = GaussianProcess(noise_shares=(-10.0,))
    with pytest.raises(TransferError, match="cannot fit the Gaussian process to 3 points"):
        gp.fit([[0.0], [0.5], [1.0]], [1.0, 2.0, 3.0])


def test_a_fit_that_succeeds_predicts_near_its_points():
    gp = GaussianProcess().fit([[0.0], [0.5], [1.0]], [1.0, 2.0, 3.0])
    mean, _ = gp.predict([[0.5]])
    assert abs(float(mean[0]) - 2.0) < 0.5


def test_an_overconfident_fit_is_widened_and_a_cautious_one_left_alone():
    X = np.linspace(0.0, 1.0, 8).reshape(-1, 1)
    y = np.where(np.arange(8) % 2 == 0, 0.0, 1.0)  # a zigzag no smooth fit explains
    tight = GaussianProcess(length_scales=(4.0,), noise_shares=(1e-4,)).fit(X, y)
    _, std = tight.predict(X)
    assert tight.loo_z_squared() > 1.5
    np.testing.assert_allclose(tight.calibrated(std), std * np.sqrt(tight.loo_z_squared()))
    cautious = GaussianProcess(variance_floor=100.0).fit(X, y)
    _, std = cautious.predict(X)
    assert cautious.loo_z_squared() < 1.0
    np.testing.assert_array_equal(cautious.calibrated(std), std)
