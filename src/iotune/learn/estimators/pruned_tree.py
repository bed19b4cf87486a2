"""CART regression tree pruned by cross-validated cost-complexity (paper 000, Sec. 4.2.1).

Paper 000's CART model "is pruned to avoid over-fitting" (Breiman et al. 1984).
scikit-learn grows the tree and prunes it for a given ``ccp_alpha`` but does not
choose alpha; ``PrunedTree`` chooses it the way Breiman et al. do: candidates
are the geometric means of consecutive alphas of the pruning path on all the
training data, and the candidate with the lowest k-fold cross-validated squared
error wins.  A path has about one alpha per leaf (~10,000 for 10,000 noisy
samples) and most are nearly equal, so candidates within 6 % of each other are
merged (40 per decade of alpha); CV cannot tell such subtrees apart.  Each
fold grows one full tree and evaluates every candidate on it (bottom-up
weakest-link pruning in numpy) instead of refitting per candidate.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.model_selection import KFold
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.validation import check_is_fitted, validate_data

from iotune.learn.estimators._params import check_int

# Upper bound on nodes x candidate alphas held in memory at once by pruned_predictions.
_BLOCK_CELLS = 4_000_000
# Candidate alphas per decade: closer candidates (within 6 %) are merged.
_ALPHAS_PER_DECADE = 40


class PrunedTree(RegressorMixin, BaseEstimator):
    """Regression tree (CART) whose cost-complexity alpha is chosen by k-fold CV.

    Parameters
    ----------
    n_folds : int, default=5
        Number of CV folds; ``min(n_folds, n_samples)`` are used.  With one
        sample there is nothing to prune and the tree is a single leaf.
    random_state : None or int, default=0
        Seeds the fold shuffle and the trees' tie-breaking between features.

    Attributes
    ----------
    estimator_ : DecisionTreeRegressor
        The tree refitted on all the data with ``ccp_alpha=ccp_alpha_``.
    ccp_alpha_ : float
        The chosen alpha (in scikit-learn's scale: impurity weighted by the
        fraction of samples in a node).
    cv_alphas_ : ndarray
        Candidate alphas, increasing.
    cv_errors_ : ndarray
        Their cross-validated mean squared errors.  Among equal minima the
        largest alpha (the smallest tree) is chosen.
    n_features_in_ : int
        Number of features seen in ``fit``.
    """

    def __init__(self, n_folds=5, random_state=0):
        self.n_folds = n_folds
        self.random_state = random_state

    def fit(self, X, y):
        """Grow, choose alpha by CV, and refit on all of ``X`` (n, d), ``y`` (n,)."""
        n_folds = check_int("PrunedTree", "n_folds", self.n_folds, 2)
        X, y = validate_data(self, X, y, y_numeric=True, dtype=np.float64)
        n = X.shape[0]
        path = DecisionTreeRegressor(random_state=self.random_state).cost_complexity_pruning_path(X, y)
        alphas = np.maximum(path.ccp_alphas, 0.0)  # round-off can put path alphas just below 0
        # Breiman et al. (1984, Ch. 3): T_k is optimal on [alpha_k, alpha_k+1); test sqrt(alpha_k alpha_k+1).
        self.cv_alphas_ = _thin(np.append(np.sqrt(alphas[:-1] * alphas[1:]), alphas[-1]))
        self.cv_errors_ = np.zeros(self.cv_alphas_.size)
        if n >= 2:
            folds = KFold(min(n_folds, n), shuffle=True, random_state=self.random_state)
            for train, test in folds.split(X):
                tree = DecisionTreeRegressor(random_state=self.random_state).fit(X[train], y[train])
                pred = pruned_predictions(tree, X[test], self.cv_alphas_)
                self.cv_errors_ += np.sum((pred - y[test, None]) ** 2, axis=0)
            self.cv_errors_ /= n
        best = self.cv_alphas_.size - 1 - int(np.argmin(self.cv_errors_[::-1]))
        self.ccp_alpha_ = float(self.cv_alphas_[best])
        self.estimator_ = DecisionTreeRegressor(ccp_alpha=self.ccp_alpha_, random_state=self.random_state)
        self.estimator_.fit(X, y)
        return self

    def predict(self, X):
        """Return the predicted targets, in the unit of y."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self.estimator_.predict(X)

    @property
    def feature_importances_(self):
        """Impurity-based importances of the pruned tree (sum to 1 unless it is one leaf)."""
        check_is_fitted(self)
        return self.estimator_.feature_importances_


def _thin(alphas: np.ndarray) -> np.ndarray:
    """Keep 0, the last alpha, and the largest alpha of each 1/40-decade bin (input increasing)."""
    positive = alphas[alphas > 0.0]
    bins = np.floor(np.log10(positive) * _ALPHAS_PER_DECADE)
    last_of_bin = np.ones(positive.size, dtype=bool)
    last_of_bin[:-1] = bins[1:] != bins[:-1]
    return np.concatenate([alphas[alphas <= 0.0][:1], positive[last_of_bin]])


def pruned_predictions(tree: DecisionTreeRegressor, X: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """Predictions of ``tree`` pruned at each of ``alphas``: shape (len(X), len(alphas)).

    Equal to refitting with ``ccp_alpha=alpha``, without refitting: for each
    alpha, a node is collapsed when R(t) + alpha <= the best cost of its
    subtree, where R(t) = impurity * weighted samples / root weighted samples
    and cost = sum of R over leaves + alpha * number of leaves (Breiman et al.
    1984, Ch. 10; scikit-learn collapses at effective alpha <= ccp_alpha too).
    """
    t = tree.tree_
    left, right = t.children_left, t.children_right
    leaf = left < 0
    risk = t.impurity * t.weighted_n_node_samples / t.weighted_n_node_samples[0]
    value = t.value[:, 0, 0]
    levels = [np.array([0])]
    while True:
        inner = levels[-1][~leaf[levels[-1]]]
        if inner.size == 0:
            break
        levels.append(np.concatenate([left[inner], right[inner]]))
    reached = tree.apply(X.astype(np.float32))
    alphas = np.asarray(alphas, dtype=np.float64)
    out = np.empty((X.shape[0], alphas.size))
    block = max(1, _BLOCK_CELLS // t.node_count)
    for lo in range(0, alphas.size, block):
        a = alphas[lo : lo + block]
        cost = risk[:, None] + a[None, :]
        collapse = np.zeros(cost.shape, dtype=bool)
        for nodes in reversed(levels):
            inner = nodes[~leaf[nodes]]
            subtree = cost[left[inner]] + cost[right[inner]]
            collapse[inner] = cost[inner] <= subtree
            cost[inner] = np.minimum(cost[inner], subtree)
        # owner[t]: the node whose value a sample reaching t gets; -1 while undecided.
        owner = np.full(cost.shape, -1, dtype=np.intp)
        owner[0] = np.where(collapse[0] | leaf[0], 0, -1)
        for nodes in levels[:-1]:
            inner = nodes[~leaf[nodes]]
            for child in (left[inner], right[inner]):
                ends_here = collapse[child] | leaf[child][:, None]
                owner[child] = np.where(owner[inner] >= 0, owner[inner], np.where(ends_here, child[:, None], -1))
        out[:, lo : lo + block] = value[owner[reached]]
    return out
