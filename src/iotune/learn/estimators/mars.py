"""Multivariate adaptive regression splines (MARS).

Paper 003 (MOANA), Section 5.2, which used the R package ``earth``; the
options and the GCV follow earth (Milborrow), the algorithm Friedman, "Multivariate
adaptive regression splines", Annals of Statistics 19(1), 1991, with the fast
knot scan of Friedman, "Fast MARS", Stanford tech. report 110, 1993.
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from iotune.learn.errors import PredictorError
from iotune.learn.estimators._data import check_fit_data, check_predict_data, is_real

# earth's alpha for the automatic minspan and endspan (Friedman 1991, Eq. 43, 45).
_SPAN_ALPHA = 0.05
_DEGENERATE = 1e-9


def gcv(rss, n, nterms, penalty):
    """earth's generalised cross-validation: RSS / (n (1 - C/n)^2).

    C = nterms + penalty (nterms - 1) / 2 is the effective number of
    parameters, nterms counting the intercept; ``penalty = -1`` means C = 0.
    Paper 003 Eq. 10 omits the 1/n (same minimiser). Returns inf when C >= n.
    """
    c = 0.0 if penalty == -1 else nterms + penalty * (nterms - 1) / 2.0
    if c >= n:
        return math.inf
    return rss / (n * (1.0 - c / n) ** 2)


class Mars(RegressorMixin, BaseEstimator):
    """MARS regression: a sum of products of hinge functions, chosen greedily and pruned by GCV.

    Forward pass: starting from the intercept, add the reflected pair
    h(x) (x_j - t)_+, h(x) (t - x_j)_+ (knot t at a data value, h a term already
    in the model of degree < ``max_degree`` not involving x_j) that most
    reduces the residual sum of squares; stop at ``max_terms`` terms or when
    R^2 improves by less than ``thresh`` (or R^2 >= 1 - thresh). Backward pass
    (earth ``pmethod="backward"``): drop terms one at a time, each time the one
    whose removal raises RSS least, and keep the subset with the lowest GCV.

    Parameters
    ----------
    max_degree : int >= 1
        Most hinge factors in one term (earth ``degree``, paper n_I).
    max_terms : int >= 1 or None
        Terms after the forward pass, intercept included (earth ``nk``,
        paper n_B). None: earth's default max(21, 2m + 1).
    penalty : float or None
        GCV cost per knot (see :func:`gcv`). None: 2 if max_degree == 1 else 3.
    thresh : float >= 0
        Forward-pass stopping threshold on the R^2 gain (earth ``thresh``).
    minspan, endspan : int >= 1 / >= 0 or None
        Knots are placed every ``minspan`` observations and not within
        ``endspan`` observations of either end, counted among the rows where
        the parent term is non-zero. None: earth's automatic values.

    Attributes
    ----------
    terms_ : list of tuple
        Selected terms; each is a tuple of hinge factors (j, t, sign): sign +1
        is max(0, x_j - t), sign -1 is max(0, t - x_j); () is the intercept.
    coef_ : ndarray
        Least-squares coefficients of ``terms_``.
    rss_, gcv_ : float
        Residual sum of squares and GCV of the selected model.
    forward_terms_ : list of tuple
        All terms found by the forward pass, before pruning.
    """

    def __init__(self, max_degree=1, max_terms=None, penalty=None, thresh=0.001, minspan=None, endspan=None):
        self.max_degree = max_degree
        self.max_terms = max_terms
        self.penalty = penalty
        self.thresh = thresh
        self.minspan = minspan
        self.endspan = endspan

    def _check_params(self, m):
        def need(name, ok, what):
            if not ok:
                raise PredictorError(f"{name} must be {what}, got {getattr(self, name)!r}")

        def is_int(v, low):
            return isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= low

        need("max_degree", is_int(self.max_degree, 1), "an integer >= 1")
        need("max_terms", self.max_terms is None or is_int(self.max_terms, 1), "None or an integer >= 1")
        penalty_ok = self.penalty is None or (
            is_real(self.penalty) and (self.penalty >= 0 or self.penalty == -1)
        )
        need("penalty", penalty_ok, "None, -1 or a number >= 0")
        need("thresh", is_real(self.thresh) and 0 <= self.thresh < 1, "a number in [0, 1)")
        need("minspan", self.minspan is None or is_int(self.minspan, 1), "None or an integer >= 1")
        need("endspan", self.endspan is None or is_int(self.endspan, 0), "None or an integer >= 0")
        max_terms = self.max_terms if self.max_terms is not None else max(21, 2 * m + 1)
        penalty = self.penalty if self.penalty is not None else (2.0 if self.max_degree == 1 else 3.0)
        return max_terms, penalty

    def fit(self, X, y):
        """Forward pass, then backward pruning by GCV."""
        X, y = check_fit_data(self, X, y)
        n, m = X.shape
        max_terms, penalty = self._check_params(m)
        # Work on columns scaled to [0, 1]: fewer cancellations in the knot-scan sums.
        lo, span = X.min(axis=0), np.ptp(X, axis=0)
        span[span == 0] = 1.0
        Xs = (X - lo) / span
        terms, B = self._forward(Xs, y, max_terms)
        keep, rss, score = _prune(B, y, penalty)
        self.forward_terms_ = [
            tuple((j, float(lo[j] + t * span[j]), sign) for j, t, sign in term) for term in terms
        ]
        self.terms_ = [self.forward_terms_[k] for k in keep]
        self.coef_ = np.linalg.lstsq(_basis(X, self.terms_), y, rcond=None)[0]
        self.rss_, self.gcv_ = rss, score
        return self

    def _forward(self, X, y, max_terms):
        n, m = X.shape
        terms = [()]
        B = np.ones((n, 1))
        tss = float(np.sum((y - y.mean()) ** 2))
        Q = B / math.sqrt(n)
        resid = y - Q @ (Q.T @ y)
        rss = float(resid @ resid)
        if tss == 0.0:
            return terms, B
        while len(terms) + 1 <= max_terms:
            best = (0.0, None)
            for p, parent in enumerate(terms):
                if len(parent) >= self.max_degree:
                    continue
                used = {j for j, _, _ in parent}
                for j in range(m):
                    if j in used:
                        continue
                    gain, t = self._best_knot(X[:, j], B[:, p], Q, resid)
                    if gain > best[0]:
                        best = (gain, (p, j, t))
            if best[1] is None:
                break
            p, j, t = best[1]
            added = False
            for sign in (1, -1):
                if len(terms) + 1 > max_terms:
                    break
                col = B[:, p] * np.maximum(0.0, sign * (X[:, j] - t))
                q = _orthogonal_part(Q, col)
                if q is None:
                    continue
                B, Q = np.column_stack([B, col]), np.column_stack([Q, q])
                terms.append(tuple(sorted(terms[p] + ((j, t, sign),))))
                added = True
            if not added:
                break
            resid = y - Q @ (Q.T @ y)
            rss_new = float(resid @ resid)
            gain, rss = (rss - rss_new) / tss, rss_new
            if gain < self.thresh or 1.0 - rss / tss >= 1.0 - self.thresh:
                break
        return terms, B

    def _best_knot(self, x, h, Q, resid):
        """Largest RSS reduction from adding the pair h (x - t)_+, h (t - x)_+, over knots t.

        All knots at once in O(N M): every inner product the 2x2 normal
        equations need is a prefix or suffix sum over rows sorted by x.
        """
        rows = np.flatnonzero(h > 0)
        N = rows.size
        if N < 2:
            return 0.0, None
        order = rows[np.argsort(x[rows], kind="stable")]
        xs, hs, Qs, rs = x[order], h[order], Q[order], resid[order]
        minspan, endspan = self._spans(N)
        pos = np.arange(endspan, N - endspan, minspan)
        if pos.size == 0:
            return 0.0, None
        knots = np.unique(xs[pos])
        knots = knots[knots < xs[-1]]
        if knots.size == 0:
            return 0.0, None

        def cums(v):
            c = np.cumsum(v, axis=0)
            return np.concatenate([np.zeros((1,) + v.shape[1:]), c])  # c[k] = sum over rows < k

        hx = hs * xs
        F = np.column_stack([Qs * hs[:, None], Qs * hx[:, None], rs * hs, rs * hx, hs**2, hs * hx, hx**2])
        cF = cums(F)
        total = cF[-1]
        gt = np.searchsorted(xs, knots, side="right")
        lt = np.searchsorted(xs, knots, side="left")
        above, below = total - cF[gt], cF[lt]
        M = Q.shape[1]
        t = knots[:, None]

        def parts(S, sign):
            qh, qhx = S[:, :M], S[:, M : 2 * M]
            rh, rhx = S[:, 2 * M], S[:, 2 * M + 1]
            hh, hhx, hxx = S[:, 2 * M + 2], S[:, 2 * M + 3], S[:, 2 * M + 4]
            a = sign * (qhx - t * qh)
            g = sign * (rhx - knots * rh)
            cc = hxx - 2 * knots * hhx + knots**2 * hh
            return a, g, cc

        a1, g1, c1 = parts(above, 1.0)
        a2, g2, c2 = parts(below, -1.0)
        G11 = c1 - np.einsum("ij,ij->i", a1, a1)
        G22 = c2 - np.einsum("ij,ij->i", a2, a2)
        G12 = -np.einsum("ij,ij->i", a1, a2)
        ok1 = G11 > _DEGENERATE * np.maximum(c1, 1e-300)
        ok2 = G22 > _DEGENERATE * np.maximum(c2, 1e-300)
        with np.errstate(divide="ignore", invalid="ignore"):
            single1 = np.where(ok1, g1**2 / G11, 0.0)
            single2 = np.where(ok2, g2**2 / G22, 0.0)
            det = G11 * G22 - G12**2
            both = ok1 & ok2 & (det > _DEGENERATE * G11 * G22)
            pair = np.where(both, (G22 * g1**2 - 2 * G12 * g1 * g2 + G11 * g2**2) / det, 0.0)
        gain = np.maximum(pair, np.maximum(single1, single2))
        k = int(np.argmax(gain))
        return float(gain[k]), float(knots[k])

    def _spans(self, N):
        """Knot spacing and end margin, in observations, for a parent non-zero on N rows."""
        m = self.n_features_in_
        if self.minspan is not None:
            minspan = self.minspan
        else:
            # Friedman (1991) Eq. 43, as earth computes it.
            minspan = max(1, int(round(-math.log2(-math.log(1 - _SPAN_ALPHA) / (m * N)) / 2.5)))
        if self.endspan is not None:
            endspan = self.endspan
        else:
            # Friedman (1991) Eq. 45.
            endspan = int(round(3 - math.log2(_SPAN_ALPHA / m)))
        if N <= 2 * endspan:
            endspan = 0
        return minspan, endspan

    def predict(self, X):
        """Evaluate the selected spline."""
        check_is_fitted(self, "coef_")
        X = check_predict_data(self, X)
        return _basis(X, self.terms_) @ self.coef_


def _orthogonal_part(Q, col):
    """Unit vector of col's component orthogonal to Q (Gram-Schmidt twice), None if col is in span(Q)."""
    norm = np.linalg.norm(col)
    if norm == 0.0:
        return None
    v = col - Q @ (Q.T @ col)
    v -= Q @ (Q.T @ v)
    size = np.linalg.norm(v)
    return v / size if size > _DEGENERATE * norm else None


def _basis(X, terms):
    B = np.ones((X.shape[0], len(terms)))
    for k, term in enumerate(terms):
        for j, t, sign in term:
            B[:, k] *= np.maximum(0.0, sign * (X[:, j] - t))
    return B


def _prune(B, y, penalty):
    """earth's backward pass: best subset of each size by sequential deletion, then min GCV.

    Returns (kept column indices, their RSS, their GCV); column 0 (intercept) is never dropped.
    """
    n = B.shape[0]

    def rss_of(cols):
        coef = np.linalg.lstsq(B[:, cols], y, rcond=None)[0]
        r = y - B[:, cols] @ coef
        return float(r @ r)

    active = list(range(B.shape[1]))
    rss = rss_of(active)
    best = (gcv(rss, n, len(active), penalty), active, rss)
    while len(active) > 1:
        trials = [(rss_of([c for c in active if c != drop]), drop) for drop in active[1:]]
        rss, drop = min(trials)
        active = [c for c in active if c != drop]
        score = gcv(rss, n, len(active), penalty)
        if score <= best[0]:
            best = (score, active, rss)
    return best[1], best[2], best[0]
