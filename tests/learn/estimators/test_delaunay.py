"""DelaunayInterpolator: agreement with Qhull in low d, exactness, degenerate inputs, extrapolation."""

import itertools

import numpy as np
import pytest
from scipy.interpolate import LinearNDInterpolator
from scipy.optimize import nnls

from iotune.learn.errors import PredictorError
from iotune.learn.estimators.delaunay import DelaunayInterpolator


def empty_sphere_margin(Z, simplex):
    """min over data of |z - C| - R for the circumsphere of a simplex (>= 0 when Delaunay)."""
    V = Z[simplex]
    A = V[1:] - V[0]
    c = np.linalg.solve(A, 0.5 * np.einsum("ij,ij->i", A, A))
    return np.min(np.linalg.norm(Z - (V[0] + c), axis=1)) - np.linalg.norm(c)


@pytest.mark.parametrize("d", [2, 3])
def test_matches_scipy_inside_hull(d):
    rng = np.random.default_rng(d)
    X = rng.uniform(size=(300, d))
    y = np.sin(3 * X).sum(axis=1)
    Q = rng.uniform(size=(400, d))
    ref = LinearNDInterpolator(X, y)(Q)
    pred, dist = DelaunayInterpolator().fit(X, y).predict(Q, return_distance=True)
    inside = ~np.isnan(ref)
    np.testing.assert_allclose(pred[inside], ref[inside], atol=1e-8)
    assert np.all(dist[inside] == 0) and np.all(dist[~inside] > 0)


@pytest.mark.parametrize("d,n", [(2, 60), (4, 200), (8, 400)])
def test_reproduces_data_and_linear_functions(d, n):
    rng = np.random.default_rng(10 + d)
    X = rng.uniform(size=(n, d))
    coef = rng.normal(size=d)
    y = 0.5 + X @ coef
    model = DelaunayInterpolator().fit(X, y)
    np.testing.assert_allclose(model.predict(X), y, atol=1e-12)
    # Convex combinations of a few data points lie inside the hull.
    mix = rng.dirichlet(np.ones(4), size=40)
    Q = np.einsum("qk,qkd->qd", mix, X[rng.integers(0, n, size=(40, 4))])
    pred, dist = model.predict(Q, return_distance=True)
    assert np.all(dist == 0)
    np.testing.assert_allclose(pred, 0.5 + Q @ coef, atol=1e-10)


def test_located_simplices_are_delaunay():
    rng = np.random.default_rng(4)
    X = rng.uniform(size=(300, 4))
    model = DelaunayInterpolator().fit(X, X.sum(axis=1))
    loc = model.locate(0.3 + 0.4 * rng.uniform(size=(30, 4)))
    Z = (model.X_ - model._center) / model._scale
    for simplex, w in zip(loc.simplices, loc.weights):
        assert w.min() >= -1e-10 and w.sum() == pytest.approx(1.0)
        assert empty_sphere_margin(Z, simplex) > -1e-9


def test_cospherical_grid_does_not_cycle():
    g = np.linspace(0.0, 1.0, 5)
    X = np.array(list(itertools.product(g, g, g)))
    y = 1.0 + X @ np.array([1.0, -2.0, 0.5])
    rng = np.random.default_rng(0)
    on_plane = np.c_[np.full(10, 0.5), rng.uniform(size=(10, 2))]
    on_hull_face = np.c_[np.ones(10), rng.uniform(size=(10, 2))]  # like MOANA's unseen pairs (spec A7)
    Q = np.vstack([rng.uniform(size=(100, 3)), X[::7], on_plane, on_hull_face])
    model = DelaunayInterpolator().fit(X, y)
    loc = model.locate(Q)
    assert np.all(loc.distance == 0)
    Z = (model.X_ - model._center) / model._scale
    for simplex in loc.simplices:
        assert empty_sphere_margin(Z, simplex) > -1e-9
    np.testing.assert_allclose(model.predict(Q), 1.0 + Q @ np.array([1.0, -2.0, 0.5]), atol=1e-12)


def test_repeated_points_are_merged_with_mean_value():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    model = DelaunayInterpolator().fit(X, y)
    assert model.X_.shape == (4, 2)
    assert model.predict([[1.0, 0.0]])[0] == pytest.approx(2.0)


@pytest.mark.parametrize(
    "X",
    [
        [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.3, 0.2, 0.0]],  # a plane
        [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]],  # a line
        [[0.0, 0.0], [1.0, 0.0]],  # fewer than d + 1 points
    ],
)
def test_lower_dimensional_data_is_rejected(X):
    with pytest.raises(PredictorError, match="dimension|needs at least"):
        DelaunayInterpolator().fit(X, np.arange(len(X), dtype=float))


def square():
    X = np.array(list(itertools.product([0.0, 1.0, 0.5], repeat=2)))
    return X, 1.0 + 2.0 * X[:, 0] + 3.0 * X[:, 1]


def test_outside_projects_onto_hull():
    X, y = square()
    Q = np.array([[2.0, 0.5], [-1.0, -1.0], [0.5, 3.0]])
    pred, dist = DelaunayInterpolator().fit(X, y).predict(Q, return_distance=True)
    Z = np.clip(Q, 0.0, 1.0)
    np.testing.assert_allclose(pred, 1.0 + 2.0 * Z[:, 0] + 3.0 * Z[:, 1], atol=1e-12)
    np.testing.assert_allclose(dist, np.linalg.norm(Q - Z, axis=1), atol=1e-12)


def test_projection_matches_direct_nnls_in_6d():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(200, 6))
    coef = rng.normal(size=6)
    model = DelaunayInterpolator().fit(X, X @ coef)
    Q = 3.0 * rng.normal(size=(10, 6))
    pred, dist = model.predict(Q, return_distance=True)
    for q, p, h in zip(Q, pred, dist):
        M = np.vstack([X.T, np.full(len(X), 1e4)])
        w = nnls(M, np.append(q, 1e4), maxiter=10_000)[0]
        z = (w / w.sum()) @ X
        assert h == pytest.approx(np.linalg.norm(q - z), rel=1e-6)
        assert p == pytest.approx(z @ coef, abs=1e-6 * (1 + abs(p)))


def test_max_extrapolation_is_relative_to_diameter():
    X, y = square()
    model = DelaunayInterpolator(max_extrapolation=0.5).fit(X, y)
    assert model.diameter_ == pytest.approx(np.sqrt(2.0))
    pred, dist = model.predict([[1.5, 0.5], [2.0, 0.5]], return_distance=True)
    assert pred[0] == pytest.approx(1.0 + 2.0 + 1.5, abs=1e-12)
    assert np.isnan(pred[1])
    np.testing.assert_allclose(dist, [0.5, 1.0], atol=1e-12)


def test_extrapolation_nan():
    X, y = square()
    pred, dist = DelaunayInterpolator(extrapolation="nan").fit(X, y).predict(
        [[0.25, 0.75], [1.0, 1.0], [1.0 + 1e-6, 0.5]], return_distance=True
    )
    assert pred[:2] == pytest.approx([1.0 + 0.5 + 2.25, 6.0])
    assert np.isnan(pred[2]) and np.isnan(dist[2]) and dist[0] == 0.0


@pytest.mark.parametrize(
    "kwargs", [{"extrapolation": "linear"}, {"max_extrapolation": -1.0}, {"eps": 0.0}, {"eps": "small"}]
)
def test_invalid_parameters(kwargs):
    X, y = square()
    with pytest.raises(PredictorError):
        DelaunayInterpolator(**kwargs).fit(X, y)
