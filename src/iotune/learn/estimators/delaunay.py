"""Delaunay interpolation without building the triangulation.

Paper 003 (MOANA), Section 5.3: the prediction at x is the barycentric blend
of the values at the vertices of the Delaunay simplex containing x (Eq. 11).
The simplex is found per query by the walk of DelaunaySparse (Chang, Thacker,
Watson, Lux, Cameron, ACM TOMS Algorithm 1012, 2020), so the cost is
O(flips * (n d + d^3)) per query and works in dimensions (d >= 6) where a full
triangulation (Qhull) is impractical.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.optimize import nnls
from scipy.spatial import cKDTree
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from iotune.learn.errors import PredictorError
from iotune.learn.estimators._data import (
    check_fit_data,
    check_predict_data,
    diameter,
    is_real,
    merge_duplicates,
)

_EXTRAPOLATION = ("project", "nan")


class Location(NamedTuple):
    """Per-query support of a Delaunay prediction; see :meth:`DelaunayInterpolator.locate`."""

    simplices: np.ndarray
    weights: np.ndarray
    distance: np.ndarray
    flips: np.ndarray


# Weight of the sum-to-one row in the projection NNLS; the constraint is met to ~1/weight^2.
_SUM_ROW_WEIGHT = 1e4
# Barycentric weights of a projected query sit on the hull boundary up to NNLS accuracy.
_BOUNDARY_TOL = 1e-7
_LIFT_PERTURBATION = 1e-10
# A point whose squared height off a face is below this fraction of its squared distance is on it.
_FLAT = 1e-12


class DelaunayInterpolator(RegressorMixin, BaseEstimator):
    """Piecewise-linear interpolation in the Delaunay simplex containing each query.

    Inside the convex hull of the data the prediction is exact for linear
    functions and passes through every data point. The Delaunay simplex is
    located per query (DelaunaySparse, TOMS 1012): data are rescaled into the
    unit ball; a first simplex is grown from the data point nearest the query
    by repeatedly adding the point giving the smallest circumball; then, while
    a barycentric weight is below ``-eps``, the vertex with the most negative
    weight is dropped and the facet is completed, on the query's side, by the
    point whose circumsphere with the facet contains no other point (a flip).

    Outside the convex hull (no point beyond the facet to flip to):

    * ``extrapolation="project"`` (default): the query is projected onto the
      hull (the closest convex combination of the data, by non-negative least
      squares) and the interpolant is evaluated there; the distance from the
      query to the hull is reported by ``predict(X, return_distance=True)``.
      If ``max_extrapolation`` is set and that distance exceeds
      ``max_extrapolation * diameter_`` the prediction is NaN.
    * ``extrapolation="nan"``: the prediction is NaN (the interpolant is
      undefined outside the hull, paper 003 Section 5.3).

    Parameters
    ----------
    extrapolation : {"project", "nan"}
    max_extrapolation : float >= 0 or None
        Largest hull distance, as a fraction of the data diameter, at which a
        projected prediction is still returned. None: no limit.
    eps : float > 0
        Tolerance on barycentric weights (a query on a facet is inside) and on
        heights above a facet, in the unit-ball scaling.

    Repeated points are merged and their values averaged. Data whose affine
    hull has dimension below d (all points on a hyperplane) are rejected with
    a :class:`PredictorError`: drop constant or dependent columns first.

    Attributes
    ----------
    X_, y_ : ndarray
        Distinct data points (original units) and their values.
    diameter_ : float
        Largest distance between two data points (original units).
    """

    def __init__(self, extrapolation="project", max_extrapolation=None, eps=1e-10):
        self.extrapolation = extrapolation
        self.max_extrapolation = max_extrapolation
        self.eps = eps

    def fit(self, X, y):
        """Store the data, rescaled into the unit ball (no triangulation is built)."""
        self._check_params()
        X, y = check_fit_data(self, X, y)
        X, y = merge_duplicates(X, y)
        n, d = X.shape
        if n < d + 1:
            raise PredictorError(
                f"Delaunay interpolation in {d} dimensions needs at least {d + 1} distinct points, got {n}"
            )
        center = X.mean(axis=0)
        scale = float(np.max(np.linalg.norm(X - center, axis=1)))
        Z = (X - center) / scale
        sv = np.linalg.svd(Z - Z.mean(axis=0), compute_uv=False)
        rank = int(np.sum(sv > 1e-9 * sv[0]))
        if rank < d:
            raise PredictorError(
                f"the data points span an affine subspace of dimension {rank} < {d} "
                "(all points on a hyperplane); remove constant or dependent columns"
            )
        self.X_, self.y_ = X, y
        self.diameter_ = diameter(X)
        self._center, self._scale = center, scale
        self._Z = Z
        self._Zt = np.ascontiguousarray(Z.T)
        # Lifting |z|^2 plus a tiny deterministic per-point offset: the walk then runs in a
        # regular triangulation that is unique even for cospherical points (grids), so it
        # cannot cycle (Edelsbrunner's acyclicity theorem), and it is a Delaunay triangulation
        # of the unperturbed points wherever the Delaunay triangulation is unique.
        golden = (np.sqrt(5.0) - 1.0) / 2.0
        self._offset = _LIFT_PERTURBATION * ((np.arange(n) * golden) % 1.0)
        self._lift = np.einsum("ij,ij->i", Z, Z) + self._offset
        self._tree = cKDTree(Z)
        return self

    def _check_params(self):
        if self.extrapolation not in _EXTRAPOLATION:
            raise PredictorError(
                f"extrapolation must be one of {_EXTRAPOLATION}, got {self.extrapolation!r}"
            )
        if self.max_extrapolation is not None and not (
            is_real(self.max_extrapolation) and self.max_extrapolation >= 0
        ):
            raise PredictorError(
                f"max_extrapolation must be None or a number >= 0, got {self.max_extrapolation!r}"
            )
        if not (is_real(self.eps) and 0 < self.eps < 1e-2):
            raise PredictorError(f"eps must be a number in (0, 0.01), got {self.eps!r}")

    def predict(self, X, return_distance=False):
        """Interpolated values; with ``return_distance``, also each query's distance to the hull.

        The distance is in the units of X: 0 inside the hull, the projection
        distance outside with ``extrapolation="project"``, NaN outside with
        ``extrapolation="nan"``.
        """
        result = self.locate(X)
        pred = np.einsum("ij,ij->i", result.weights, self.y_[np.maximum(result.simplices, 0)])
        pred[result.simplices[:, 0] < 0] = np.nan
        return (pred, result.distance) if return_distance else pred

    def locate(self, X):
        """Where each query is interpolated from.

        Returns a :class:`Location` with, per query: ``simplices`` (indices
        into ``X_`` of the points carrying the prediction, padded with -1;
        all -1 where the prediction is NaN), their ``weights`` (convex, 0 in
        the padding), ``distance`` to the hull (as in :meth:`predict`) and
        ``flips`` taken by the walk.
        """
        check_is_fitted(self, "X_")
        self._check_params()
        Xq = check_predict_data(self, X)
        Zq = (Xq - self._center) / self._scale
        _, nearest = self._tree.query(Zq)
        nq, width = len(Zq), Zq.shape[1] + 1
        simplices = np.full((nq, width), -1)
        weights = np.zeros((nq, width))
        dist = np.zeros(nq)
        flips = np.zeros(nq, dtype=int)
        for i, q in enumerate(Zq):
            simplex, w, inside, flips[i] = self._walk(q, int(nearest[i]))
            if inside is False and self.extrapolation == "nan":
                dist[i] = np.nan
                continue
            if not inside:
                # Also when the walk is stuck: the projection decides whether q is inside.
                simplex, w, dist[i] = self._project(q)
                if dist[i] > 0 and self.extrapolation == "nan":
                    dist[i] = np.nan
                    continue
                if self.max_extrapolation is not None and dist[i] > self.max_extrapolation * self.diameter_:
                    continue
            if len(simplex) > width:
                simplex, w = _caratheodory(self._Z, simplex, w)
            simplices[i, : len(simplex)] = simplex
            weights[i, : len(simplex)] = w
        return Location(simplices, weights, dist, flips)

    def _seed(self, first):
        """First simplex: the nearest point, grown by the smallest circumball (TOMS 1012, MAKEFIRSTSIMP).

        With the current vertices' circumcentre c (relative to the first vertex)
        and an orthonormal basis of their edges, adding point p, w = p - v_1 with
        height |h| off that span, gives the circumball centred at
        c + s h/|h|, s = (|w|^2/2 - c.w)/|h|, of radius^2 r^2 + s^2.
        """
        Z = self._Z
        W = Z - Z[first]
        w2 = np.einsum("ij,ij->i", W, W)
        lifted = 0.5 * (w2 + self._offset - self._offset[first])
        height2 = w2.copy()
        proj = np.zeros_like(w2)
        basis = []
        simplex = [first]
        for _ in range(Z.shape[1]):
            ok = height2 > _FLAT * w2
            ok[simplex] = False
            if not ok.any():
                return None
            height = np.sqrt(np.where(ok, height2, 1.0))
            s = np.where(ok, (lifted - proj) / height, np.inf)
            j = int(np.argmin(np.abs(s)))
            h = W[j].copy()
            for _ in range(2):
                for u in basis:
                    h -= (h @ u) * u
            h /= np.linalg.norm(h)
            basis.append(h)
            along = W @ h
            height2 -= along**2
            proj += s[j] * along
            simplex.append(j)
        return simplex

    def _walk(self, q, first):
        """Locate q: (simplex, barycentric weights, status, flips) (TOMS 1012, the flip loop).

        status is True (inside), False (beyond a hull facet) or None (stuck:
        a repeated simplex, too many flips or a singular simplex).
        """
        Z, eps = self._Z, self.eps
        simplex = self._seed(first)
        if simplex is None:
            return np.asarray([first]), None, None, 0
        max_flips = 50 * Z.shape[1] + 100
        seen = set()
        Zt, lift = self._Zt, self._lift
        for flip in range(max_flips + 1):
            V = Z[simplex]
            A = V[1:] - V[0]
            try:
                Ainv = np.linalg.inv(A)
            except np.linalg.LinAlgError:
                return np.asarray(simplex), None, None, flip
            lam = (q - V[0]) @ Ainv
            weights = np.concatenate(([1.0 - lam.sum()], lam))
            drop = int(np.argmin(weights))
            if weights[drop] >= -eps:
                return np.asarray(simplex), weights, True, flip
            key = tuple(sorted(simplex))
            if key in seen:
                break
            seen.add(key)
            # Gradient of barycentric weight `drop`; q lies where it is negative.
            grad = -Ainv.sum(axis=1) if drop == 0 else Ainv[:, drop - 1]
            normal = -grad / np.linalg.norm(grad)
            facet = simplex[:drop] + simplex[drop + 1 :]
            # Power centre C of the current simplex under the lifting L: 2 A_i . C = L_i - L_0.
            # The power of p, L_p - 2 p.C + 2 v_0.C - L_0, is 0 at the vertices.
            L = lift[simplex]
            C = Ainv @ (0.5 * (L[1:] - L[0]))
            proj = np.stack([normal, -2.0 * C]) @ Zt
            height = proj[0]
            height -= Z[facet[0]] @ normal
            # Spheres through the facet have centres C + s*normal; point p lies on the one with
            # s_p = power(p, current sphere) / (2 height_p). The empty one has the smallest s_p.
            power = proj[1]
            power += lift
            power += 2.0 * (V[0] @ C) - L[0]
            with np.errstate(divide="ignore", invalid="ignore"):
                power /= height
            power[height <= eps] = np.inf
            power[facet] = np.inf
            new = int(np.argmin(power))
            if power[new] == np.inf:
                return np.asarray(simplex), weights, False, flip
            simplex = facet[:drop] + [new] + facet[drop:]
        return np.asarray(simplex), weights, None, flip

    def _project(self, q):
        """Closest point z of the hull to q: (support, convex weights, distance in X units).

        NNLS (sum-to-one as a heavily weighted row) over a working set of
        points, grown by the points violating optimality (p . r > z . r for
        r = q - z) until none does. If z is a convex combination of at most d
        points, that combination is unique on the hull face holding z and equals
        the Delaunay interpolant there; otherwise (a degenerate face) the walk
        picks the Delaunay simplex at z.
        """
        Z, d = self._Z, self._Z.shape[1]
        k = min(len(Z), 4 * d)
        _, near = self._tree.query(q, k=k)
        work = np.union1d(np.atleast_1d(near), np.argpartition(-(Z @ q), k - 1)[:k])
        for _ in range(100):
            M = np.vstack([Z[work].T, np.full(len(work), _SUM_ROW_WEIGHT)])
            w, _ = nnls(M, np.append(q, _SUM_ROW_WEIGHT), maxiter=50 * M.shape[1])
            w /= w.sum()
            z = w @ Z[work]
            r = q - z
            score = Z @ r
            violators = np.flatnonzero(score > z @ r + self.eps)
            violators = np.setdiff1d(violators, work)
            if violators.size == 0:
                break
            top = violators[np.argsort(-score[violators])[: 2 * d]]
            work = np.union1d(work, top)
        support, weights = _polish(Z, q, work[w > 0], w[w > 0])
        offset = float(np.linalg.norm(q - weights @ Z[support]))
        distance = 0.0 if offset <= self.eps else offset * self._scale
        if support.size <= d:
            return support, weights, distance
        z = weights @ Z[support]
        simplex, bary, _, _ = self._walk(z, int(support[np.argmax(weights)]))
        if bary is not None and bary.min() >= -_BOUNDARY_TOL:
            bary = np.clip(bary, 0.0, None)
            return simplex, bary / bary.sum(), distance
        return support, weights, distance


def _polish(Z, q, support, weights):
    """Exact closest point to q in the affine hull of the NNLS support, if still convex.

    The NNLS meets sum-to-one only to ~1/_SUM_ROW_WEIGHT^2; on a support of
    affinely independent points the projection has a closed form.
    """
    if len(support) < 2 or len(support) > Z.shape[1]:
        return support, weights / weights.sum()
    P = Z[support]
    mu, *_ = np.linalg.lstsq((P[1:] - P[0]).T, q - P[0], rcond=None)
    exact = np.concatenate(([1.0 - mu.sum()], mu))
    if exact.min() >= 0.0:
        return support, exact
    return support, weights / weights.sum()


def _caratheodory(Z, support, weights):
    """Same point as a convex combination of at most d + 1 of the support points (Caratheodory)."""
    support, weights = np.asarray(support), np.asarray(weights, dtype=float)
    while len(support) > Z.shape[1] + 1:
        # An affine dependence sum(mu_i z_i) = 0, sum(mu_i) = 0: shift weights along it.
        M = np.vstack([Z[support].T, np.ones(len(support))])
        mu = np.linalg.svd(M)[2][-1]
        if not (mu > 0).any():
            mu = -mu
        pos = mu > 0
        step = np.min(weights[pos] / mu[pos])
        weights = weights - step * mu
        keep = weights > 1e-15
        support, weights = support[keep], weights[keep] / weights[keep].sum()
    return support, weights
