"""Modified linear Shepard interpolation (LSP).

Paper 003 (MOANA), Section 5.1, following the reference code it used:
SHEPPACK, ACM TOMS Algorithm 905 (Thacker, Zhang, Watson, Birch, Iyer and
Berry, 2010), subroutines ``LSHEP`` (fit) and ``LSHEPVAL`` (evaluation).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial import cKDTree
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from iotune.learn.errors import PredictorError
from iotune.learn.estimators._data import (
    check_fit_data,
    check_predict_data,
    diameter,
    merge_duplicates,
)

_NEIGHBOR_RULES = ("sheppack", "paper")


class LinearShepard(RegressorMixin, BaseEstimator):
    """Linear Shepard interpolant: a locally weighted blend of local linear fits.

    Each node k gets a linear function P_k(x) = f_k + a_k . (x - x_k), fitted by
    weighted least squares to its NP nearest neighbours; a prediction is the
    average of the P_k of the nodes whose radius of influence R_w,k contains x,
    weighted by W_k = ((R_w,k - d_k) / (R_w,k d_k))^2 (paper 003, Eq. 2-7).
    The interpolant passes through every node and reproduces linear functions
    where the local fits have full rank.

    Parameters
    ----------
    neighbors : {"sheppack", "paper"}
        How many neighbours fit each local plane. ``"sheppack"`` (default) is
        the code the paper ran: NP = min(n - 1, ceil(3m / 2)). ``"paper"`` is
        the literal text of Section 5.1: N_p = min(n, ceil(3m / 2)) points
        *including* the node, so one neighbour fewer (moana_spec A2).

    Attributes
    ----------
    X_ : ndarray (n, m)
        Distinct nodes; repeated points are merged and their values averaged.
    y_ : ndarray (n,)
    coef_ : ndarray (n, m)
        Slopes a_k of the local linear fits (SHEPPACK's ``A``).
    radius_ : ndarray (n,)
        R_k, distance from node k to its NP-th nearest neighbour.
    radius_w_ : ndarray (n,)
        Radii of influence R_w,k = min(D / 2, R_k), D the data diameter.
    rank_deficient_ : ndarray of bool (n,)
        Local fits of rank < m (SHEPPACK ``IER = 2``); their slope is the
        minimum-norm least-squares solution.
    n_neighbors_ : int
        NP actually used.
    """

    def __init__(self, neighbors="sheppack"):
        self.neighbors = neighbors

    def fit(self, X, y):
        """Fit the local linear approximations (SHEPPACK ``LSHEP``)."""
        if self.neighbors not in _NEIGHBOR_RULES:
            raise PredictorError(
                f"neighbors must be one of {_NEIGHBOR_RULES}, got {self.neighbors!r}"
            )
        X, y = check_fit_data(self, X, y)
        X, y = merge_duplicates(X, y)
        n, m = X.shape
        if n < 2:
            raise PredictorError("LinearShepard needs at least 2 distinct points, got 1 sample")
        half = math.ceil(3 * m / 2)
        n_nb = min(n - 1, half) if self.neighbors == "sheppack" else min(n, half) - 1

        self._tree = cKDTree(X)
        nbr, dist = self._neighbours(X, n_nb)
        radius = dist[:, -1]
        radius_p = 1.1 * radius
        # Row weights s_i = sqrt(omega_ik) = (R_p - d_i) / (R_p d_i)  (paper 003, Eq. 6-7).
        s = (radius_p[:, None] - dist) / (radius_p[:, None] * dist)
        A = s[:, :, None] * (X[nbr] - X[:, None, :])
        b = s * (y[nbr] - y[:, None])
        coef, rank = _min_norm_lstsq(A, b, rcond=n_nb * np.finfo(float).eps)

        # R_w = min(D/2, R) (Eq. 5); D is needed only if some R exceeds a lower bound of D/2.
        far = float(np.max(np.linalg.norm(X - X[0], axis=1)))
        half_diam = diameter(X) / 2.0 if radius.max() > far / 2.0 else np.inf

        self.X_, self.y_ = X, y
        self.coef_ = coef
        self.radius_ = radius
        self.radius_w_ = np.minimum(half_diam, radius)
        self.rank_deficient_ = rank < m
        self.n_neighbors_ = n_nb
        return self

    def _neighbours(self, X, n_nb):
        """The n_nb nearest other nodes of every node, ties broken by lower index.

        SHEPPACK sorts by distance with a stable insertion sort, so among equal
        distances the lower node index comes first; a KD-tree does not promise
        that, so candidates are re-sorted and rows whose cut-off distance may
        have tied with an unseen node are redone by brute force.
        """
        n = X.shape[0]
        k = min(n, 2 * n_nb + 2)
        _, cand = self._tree.query(X, k=k)
        cand = np.asarray(cand).reshape(n, k)
        dist = np.linalg.norm(X[cand] - X[:, None, :], axis=2)
        dist[cand == np.arange(n)[:, None]] = np.inf
        order = np.lexsort((cand, dist), axis=-1)
        cand = np.take_along_axis(cand, order, axis=1)
        dist = np.take_along_axis(dist, order, axis=1)
        nbr, nd = cand[:, :n_nb].copy(), dist[:, :n_nb].copy()
        if k < n:
            unsure = np.flatnonzero(nd[:, -1] >= dist[:, k - 2])
            for i in unsure:
                d = np.linalg.norm(X - X[i], axis=1)
                d[i] = np.inf
                idx = np.lexsort((np.arange(n), d))[:n_nb]
                nbr[i], nd[i] = idx, d[idx]
        return nbr, nd

    def predict(self, X, return_fallback=False):
        """Evaluate the interpolant (SHEPPACK ``LSHEPVAL``).

        Where no node's radius of influence contains a query, SHEPPACK falls
        back to inverse-distance-squared Shepard over the m + 1 nearest nodes
        (``IER = 1``; not mentioned in the paper). With ``return_fallback`` the
        per-query boolean flag of that case is returned as a second array.
        """
        check_is_fitted(self, "coef_")
        Xq = check_predict_data(self, X)
        nq, m = Xq.shape
        rw = self.radius_w_
        qtree = cKDTree(Xq)
        pairs = qtree.sparse_distance_matrix(self._tree, float(rw.max()), output_type="ndarray")
        qi, ki, d = pairs["i"], pairs["j"], pairs["v"]
        keep = d < rw[ki]
        qi, ki, d = qi[keep], ki[keep], d[keep]

        pred = np.zeros(nq)
        # SHEPPACK returns f_k when d is negligible against R_w: RW(K) - DIST == RW(K).
        at_node = rw[ki] - d == rw[ki]
        exact_q = np.zeros(nq, dtype=bool)
        exact_q[qi[at_node]] = True
        pred[qi[at_node]] = self.y_[ki[at_node]]

        live = ~at_node & ~exact_q[qi]
        qi, ki, d = qi[live], ki[live], d[live]
        w = ((rw[ki] - d) / (rw[ki] * d)) ** 2
        local = self.y_[ki] + np.einsum("ij,ij->i", self.coef_[ki], Xq[qi] - self.X_[ki])
        wsum = np.bincount(qi, weights=w, minlength=nq)
        blend = np.bincount(qi, weights=w * local, minlength=nq)
        covered = wsum > 0
        pred[covered] = blend[covered] / wsum[covered]

        fallback = ~covered & ~exact_q
        if fallback.any():
            k = min(m + 1, self.X_.shape[0])
            dist, idx = self._tree.query(Xq[fallback], k=k)
            dist, idx = dist.reshape(-1, k), idx.reshape(-1, k)
            w = 1.0 / dist**2
            pred[fallback] = np.sum(w * self.y_[idx], axis=1) / np.sum(w, axis=1)
        if return_fallback:
            return pred, fallback
        return pred


def _min_norm_lstsq(A, b, rcond):
    """Batched minimum-norm least squares by SVD, like LAPACK DGELSS.

    Singular values at or below rcond * s_max are treated as zero.
    Returns the solutions (batch, m) and the numerical ranks (batch,).
    """
    U, sv, Vt = np.linalg.svd(A, full_matrices=False)
    keep = sv > rcond * sv[:, :1]
    inv = np.where(keep, 1.0 / np.where(keep, sv, 1.0), 0.0)
    Utb = np.einsum("bji,bj->bi", U, b)
    return np.einsum("bij,bi->bj", Vt, inv * Utb), keep.sum(axis=1)
