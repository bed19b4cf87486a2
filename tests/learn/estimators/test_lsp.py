"""LinearShepard against the SHEPPACK known answers of moana.json and its defining properties."""

import json
from pathlib import Path

import numpy as np
import pytest

from iotune.errors import IotuneError
from iotune.learn.errors import PredictorError
from iotune.learn.estimators.lsp import LinearShepard

KAT = json.loads((Path(__file__).parents[2] / "data" / "reference" / "moana.json").read_text())["lsp_kat"]


def linear(P):
    return 3 + 2 * P[:, 0] - 1.5 * P[:, 1]


def quadratic(P):
    # Recovered from the KAT slopes: f = (x - 0.3)^2 + 2 (y - 0.6)^2 matches all four true values.
    return (P[:, 0] - 0.3) ** 2 + 2 * (P[:, 1] - 0.6) ** 2


def well_conditioned(X, model):
    """Nodes whose local least-squares matrix is not numerically singular.

    Nodes 1, 6 and 11 of the KAT set are exactly collinear in exact arithmetic
    (Weyl sequence, equal index steps), so their slopes under the paper rule
    are rounding noise amplified ~1e14 times and cannot be compared.
    """
    nbr, dist = model._neighbours(X, model.n_neighbors_)
    rp = 1.1 * dist[:, -1:]
    s = (rp - dist) / (rp * dist)
    A = s[:, :, None] * (X[nbr] - X[:, None, :])
    sv = np.linalg.svd(A, compute_uv=False)
    return (sv[:, -1] > 1e-8 * sv[:, 0]) | model.rank_deficient_


@pytest.mark.parametrize("convention", ["sheppack", "paper"])
@pytest.mark.parametrize("name,func", [("linear_3+2x-1.5y", linear), ("quadratic", quadratic)])
def test_known_answers(convention, name, func):
    ref = KAT[f"{convention}/{name}"]
    X, Q = np.array(KAT["nodes"]), np.array(KAT["queries"])
    model = LinearShepard(neighbors=convention).fit(X, func(X))
    assert model.n_neighbors_ == ref["NP_neighbours"]
    np.testing.assert_allclose(model.radius_w_, ref["RW"], rtol=1e-11)
    assert model.rank_deficient_.sum() == ref["rank_deficient_nodes"]
    ok = well_conditioned(X, model)
    assert ok.sum() >= 10
    np.testing.assert_allclose(model.coef_[ok], np.array(ref["A"])[ok], atol=1e-10)
    pred, fallback = model.predict(Q, return_fallback=True)
    np.testing.assert_allclose(pred, ref["values_at_queries"], atol=1e-10)
    assert not fallback.any()
    np.testing.assert_array_equal(model.predict(X), func(X))


def test_paper_rule_does_not_reproduce_linear_at_centre():
    X, Q = np.array(KAT["nodes"]), np.array(KAT["queries"])
    sheppack = LinearShepard().fit(X, linear(X)).predict(Q[:1])
    paper = LinearShepard(neighbors="paper").fit(X, linear(X)).predict(Q[:1])
    assert sheppack[0] == pytest.approx(3.25, abs=1e-12)
    assert paper[0] == pytest.approx(3.398436142865, abs=1e-10)


@pytest.mark.parametrize("m", [1, 3, 6])
def test_interpolates_and_reproduces_linear(m):
    rng = np.random.default_rng(m)
    X = rng.uniform(size=(200, m))
    coef = rng.normal(size=m)
    y = 1.5 + X @ coef
    model = LinearShepard().fit(X, y)
    np.testing.assert_allclose(model.predict(X), y, rtol=0, atol=0)
    Q = rng.uniform(0.2, 0.8, size=(300, m))
    pred, fallback = model.predict(Q, return_fallback=True)
    # In 1-D two neighbours leave gaps between radii of influence; the fallback covers them.
    assert fallback.mean() < (0.1 if m == 1 else 1e-9)
    assert not model.rank_deficient_.any()
    np.testing.assert_allclose(pred[~fallback], 1.5 + Q[~fallback] @ coef, atol=1e-9)


def test_fallback_is_inverse_distance_shepard_over_m_plus_1_nearest():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.5]])
    y = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    model = LinearShepard().fit(X, y)
    q = np.array([[10.0, 0.2]])
    pred, fallback = model.predict(q, return_fallback=True)
    assert fallback.tolist() == [True]
    d = np.linalg.norm(X - q, axis=1)
    near = np.argsort(d)[:3]
    w = 1 / d[near] ** 2
    assert pred[0] == pytest.approx(np.sum(w * y[near]) / w.sum(), rel=1e-14)


def test_tie_order_is_lower_index_first():
    # Node 0 has four neighbours at distance 1; SHEPPACK keeps the lowest indices.
    X = np.array([[0.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [1.0, 0.0], [0.0, -1.0], [5.0, 5.0]])
    model = LinearShepard().fit(X, np.arange(6.0))
    nbr, _ = model._neighbours(model.X_, model.n_neighbors_)
    assert nbr[0].tolist() == [1, 2, 3]


def test_duplicates_are_merged_with_mean_value():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    model = LinearShepard().fit(X, y)
    assert model.X_.shape == (4, 2)
    assert model.predict([[1.0, 0.0]])[0] == 2.0


@pytest.mark.parametrize(
    "kwargs,X,y",
    [
        ({"neighbors": "both"}, [[0.0], [1.0]], [0.0, 1.0]),
        ({}, [[0.0]], [1.0]),
        ({}, [[0.0], [0.0]], [1.0, 2.0]),
        ({}, [[0.0], [np.nan]], [1.0, 2.0]),
    ],
)
def test_invalid_input_raises_one_line_error(kwargs, X, y):
    with pytest.raises(PredictorError) as info:
        LinearShepard(**kwargs).fit(X, y)
    assert isinstance(info.value, IotuneError) and isinstance(info.value, ValueError)
    assert "\n" not in str(info.value)
