"""The tuner's Gaussian process: a fit that no kernel matrix allows is a TransferError, not a TypeError."""

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
