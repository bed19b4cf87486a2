"""RankBoost with threshold weak rankers, trained without a pair list.

RankBoost (Freund, Iyer, Schapire and Singer, JMLR 4, 2003) is the ranking
model of paper 000 (Section 4.2.2, Algorithm 2).  Its distribution lives on the
"crucial pairs" implied by the targets, of which there are O(n^2); this module
never builds them.  Because every pair weight factorises as
D(a, b) ~ exp(H(a)) * exp(-H(b)), each round needs only per-item potentials,
which are prefix sums over the items sorted by target (see
``shared reference algorithms.md``, "RankBoost without pairs").  Cost: one
O(n log n) sort per feature, then O(n d) per round.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from iotune.learn.estimators._params import check_int, check_option
from iotune.learn.estimators.tags import score_tags
from iotune.learn.metrics import kendall_tau

ALPHA_RULES = ("exact", "approx")

# A weak ranker whose |r| is below this cannot move the ranking: stop boosting.
_MIN_ABS_R = 1e-12


class RankBoost(RegressorMixin, BaseEstimator):
    """RankBoost ranking model (paper 000, Algorithm 2; Freund et al. 2003).

    Weak rankers are thresholds on one feature, h(x) = [x_f > theta], with
    theta halfway between two distinct training values of x_f.  Each round picks
    the (f, theta) with the largest |r| (Freund et al. 2003, Sec. 3.2), where
    r = sum over crucial pairs of D(a, b) * (h(b) - h(a)), and a signed step
    alpha, so features that correlate negatively with quality are used too.
    The ranking function is F(x) = sum_t alpha_t h_t(x), higher = better.

    Targets: by default **smaller y is better** (y is a time or a cost).  Every
    pair of training items with different y is a crucial pair; equal y form no
    pair.  ``greater_is_better=True`` flips this, for bandwidths.

    ``predict`` returns a score **in the same orientation as y**: ``-F(x)`` by
    default, so, as with times, lower = better and sorting ascending by
    ``predict`` lists the best configurations first; ``F(x)`` when
    ``greater_is_better=True``.  The values are ranking scores, not estimates
    of y (only their order means anything).  With the default orientation,
    ``predict`` is paper 000's F, which orders like y.

    Parameters
    ----------
    n_rounds : int, default=200
        Maximum number of boosting rounds T (paper 000 uses 200).  Boosting
        stops early when no weak ranker has |r| > 1e-12: the data hold no
        further ordering information the weak rankers can express.
    alpha_rule : {"exact", "approx"}, default="exact"
        Step size of a round.  ``"exact"`` minimises the normaliser Z for the
        chosen {0, 1} weak ranker: alpha = 0.5 ln(W+ / W-), where W+ (W-) is the
        weight of the pairs it orders correctly (wrongly).  ``"approx"``
        minimises Freund et al.'s upper bound on Z: alpha = 0.5 ln((1 + r) / (1 - r)).
        Both are smoothed by eps = 1 / (number of crucial pairs), i.e.
        0.5 ln((p + eps) / (q + eps)), so a weak ranker that orders no pair
        wrongly gets a large finite step instead of an infinite one.
    greater_is_better : bool, default=False
        False: smaller y is better (times, costs).  True: larger y is better.
    random_state : None or int, default=None
        Unused: fitting is deterministic (ties in |r| go to the lowest feature
        index, then the lowest threshold).  Accepted so that every iotune
        predictor can be built with a ``random_state``.

    Attributes
    ----------
    features_ : ndarray of int, shape (n_rounds_,)
        Feature index of each round's weak ranker.
    thresholds_ : ndarray of float, shape (n_rounds_,)
        Its threshold theta.
    alphas_ : ndarray of float, shape (n_rounds_,)
        Its signed step alpha.
    n_rounds_ : int
        Rounds actually run (<= ``n_rounds``).
    n_features_in_ : int
        Number of features seen in ``fit``.
    """

    def __init__(self, n_rounds=200, alpha_rule="exact", greater_is_better=False, random_state=None):
        self.n_rounds = n_rounds
        self.alpha_rule = alpha_rule
        self.greater_is_better = greater_is_better
        self.random_state = random_state

    def fit(self, X, y):
        """Learn the weak rankers from features ``X`` (n, d) and targets ``y`` (n,)."""
        n_rounds = check_int("RankBoost", "n_rounds", self.n_rounds, 0)
        check_option("RankBoost", "alpha_rule", self.alpha_rule, ALPHA_RULES)
        check_option("RankBoost", "greater_is_better", self.greater_is_better, (True, False))
        X, y = validate_data(self, X, y, y_numeric=True, dtype=np.float64)
        cost = -y if self.greater_is_better else y

        by_cost = np.argsort(cost, kind="stable")
        X, cost = X[by_cost], cost[by_cost]  # from here on, item i is the i-th best
        # Items [0, better_end[i]) are strictly better than i, [worse_start[i], n) strictly worse.
        better_end = np.searchsorted(cost, cost, side="left")
        worse_start = np.searchsorted(cost, cost, side="right")
        n_pairs = int(np.sum(X.shape[0] - worse_start))

        by_x = np.argsort(X, axis=0, kind="stable")
        x_sorted = np.take_along_axis(X, by_x, axis=0)
        can_cut = x_sorted[1:] > x_sorted[:-1]  # cut after sorted position k only between distinct values

        features, thresholds, alphas = [], [], []
        score = np.zeros(X.shape[0])  # H, higher = better
        for _ in range(n_rounds if n_pairs else 0):
            pot = _Potentials(score, better_end, worse_start)
            pi_by_x = pot.pi[by_x]
            # r of the cut after sorted position k = sum of pi over positions k+1..n-1.
            r = np.cumsum(pi_by_x[::-1], axis=0)[::-1][1:]
            abs_r = np.where(can_cut, np.abs(r), -np.inf).T  # (d, n-1): ties go to lowest f, then k
            best = int(np.argmax(abs_r))
            f, k = divmod(best, abs_r.shape[1])
            if not abs_r[f, k] > _MIN_ABS_R:
                break
            theta = _midpoint(x_sorted[k, f], x_sorted[k + 1, f])
            above = X[:, f] > theta
            if self.alpha_rule == "exact":
                p, q = pot.correct_and_wrong(above)
            else:
                p, q = (1.0 + r[k, f]) / 2.0, (1.0 - r[k, f]) / 2.0
            eps = 1.0 / n_pairs
            alpha = 0.5 * np.log((p + eps) / (q + eps))
            score += alpha * above
            features.append(f)
            thresholds.append(theta)
            alphas.append(alpha)

        self.features_ = np.asarray(features, dtype=np.intp)
        self.thresholds_ = np.asarray(thresholds, dtype=np.float64)
        self.alphas_ = np.asarray(alphas, dtype=np.float64)
        self.n_rounds_ = len(alphas)
        return self

    def predict(self, X):
        """Return ranking scores oriented like y: by default -F(x), lower = better.

        See the class docstring; only the order of the values is meaningful.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        f = (X[:, self.features_] > self.thresholds_).astype(np.float64) @ self.alphas_
        return f if self.greater_is_better else -f

    def __sklearn_tags__(self):
        return score_tags(super().__sklearn_tags__())

    def score(self, X, y, sample_weight=None):
        """Return Kendall's tau-b between ``predict(X)`` and ``y`` (1 = same order).

        A ranker is judged on order, so this replaces the R^2 of
        ``RegressorMixin``, which would compare ranking scores with times.
        """
        if sample_weight is not None:
            raise TypeError("RankBoost.score does not support sample_weight")
        return kendall_tau(y, self.predict(X))


class _Potentials:
    """Per-item potentials of the pair distribution D_t (algorithms.md).

    Items are sorted best first.  With u = exp(H), w = exp(-H), the pair (a worse,
    b better) has weight D(a, b) = u(a) w(b) / Z, and
    pi(x) = [w(x) S_u(x) - u(x) S_w(x)] / Z, where S_u(x) sums u over the items
    worse than x and S_w(x) sums w over the items better than x.  Everything is
    computed in logs with one common shift, because after many rounds the
    margins H(b) - H(a) exceed the range of exp.
    """

    def __init__(self, score, better_end, worse_start):
        self.log_u, self.log_w = score, -score
        self.better_end, self.worse_start = better_end, worse_start
        as_better = self.log_w + self._log_worse_sum(self.log_u)  # log of w(x) S_u(x)
        as_worse = self.log_u + self._log_better_sum(self.log_w)  # log of u(x) S_w(x)
        self.shift = max(as_better.max(), as_worse.max())
        weight_as_better = np.exp(as_better - self.shift)
        self.z = weight_as_better.sum()
        self.pi = (weight_as_better - np.exp(as_worse - self.shift)) / self.z

    def correct_and_wrong(self, above):
        """Return (W+, W-) for h = ``above``: weight of the pairs h orders correctly, wrongly.

        Correct: the better item is above the threshold and the worse one is not.
        """
        below = ~above
        log_u_below = np.where(below, self.log_u, -np.inf)
        log_w_below = np.where(below, self.log_w, -np.inf)
        correct = self.log_w[above] + self._log_worse_sum(log_u_below)[above]
        wrong = self.log_u[above] + self._log_better_sum(log_w_below)[above]
        return (
            np.exp(correct - self.shift).sum() / self.z,
            np.exp(wrong - self.shift).sum() / self.z,
        )

    def _log_worse_sum(self, log_v):
        """log of sum of v over the items strictly worse than each item (-inf if none)."""
        suffix = np.logaddexp.accumulate(log_v[::-1])[::-1]
        return np.append(suffix, -np.inf)[self.worse_start]

    def _log_better_sum(self, log_v):
        """log of sum of v over the items strictly better than each item (-inf if none)."""
        prefix = np.logaddexp.accumulate(log_v)
        return np.insert(prefix, 0, -np.inf)[self.better_end]


def _midpoint(lo, hi):
    """A threshold theta with lo <= theta < hi, halfway where floating point allows."""
    # 0.5 * lo + 0.5 * hi cannot overflow; for adjacent floats it can round up to hi.
    theta = 0.5 * lo + 0.5 * hi
    return float(theta) if lo <= theta < hi else float(lo)
