"""Queueing model of one file written over ``n`` Lustre OSTs (paper 004, Sec. II-B).

Each OST is an independent M/M/1 queue in steady state: requests arrive at
``arrival_rate`` (lambda, per second) and are served at ``service_rate``
(gamma, per second), so utilisation rho = lambda/gamma must be below 1.  A file
of M bytes split over n OSTs waits for the slowest of n i.i.d. waiting times,
then is written at ``bandwidth`` V bytes per second per OST::

    T(M, n) = max(W_1, ..., W_n) + M / (n V)

with P(W = 0) = 1 - rho and P(W > t) = rho exp(-a t), a = gamma - lambda
(paper 004, Eq. 3).  All sizes are bytes, rates per second, times seconds.
"""

import numpy as np

from iotune.analytic import _validate as check
from iotune.analytic.errors import ModelError

RHO_FLOOR = 1e-3
"""The smallest utilisation ``fit`` returns: below it no queue is left and the fit is degenerate (issue 33)."""


def _max_wait_table(rho: float, n_max: int, exact: bool) -> np.ndarray:
    """a * E[max of n waits] for n = 1..n_max (in units of 1/a)."""
    j = np.arange(1, n_max + 1, dtype=float)
    idle_j = np.power(1.0 - rho, j)
    if exact:
        # E[max] = int_0^inf 1 - F(t)^n dt; with x = rho e^{-a t} this is
        # (1/a) int_0^rho (1 - (1-x)^n) / x dx = (1/a) sum_j (1 - (1-rho)^j) / j.
        return np.cumsum((1.0 - idle_j) / j)
    # Paper 004, last line of the E(T) derivation after Eq. 4 (wrong for n >= 3).
    harmonic_before = np.concatenate(([0.0], np.cumsum(1.0 / j)[:-1]))
    return (1.0 - idle_j) * harmonic_before + rho**j / j


def _scalar(value):
    return float(value) if np.ndim(value) == 0 else value


class LustreQueueModel:
    """Completion time of a write striped over n OSTs (paper 004, Sec. II-B).

    Parameters
    ----------
    arrival_rate:
        lambda, requests per second arriving at each OST.
    service_rate:
        gamma, requests per second one OST serves; must exceed ``arrival_rate``.
    bandwidth:
        V, bytes per second one OST writes.  Paper 004 Table I gives 0.5 Gbit/s,
        i.e. 62.5e6 bytes/s.
    """

    def __init__(self, arrival_rate: float, service_rate: float, bandwidth: float):
        self.arrival_rate = check.positive("arrival_rate", arrival_rate)
        self.service_rate = check.positive("service_rate", service_rate)
        self.bandwidth = check.positive("bandwidth", bandwidth)
        if self.arrival_rate >= self.service_rate:
            raise ModelError(
                f"OST queue is unstable: arrival_rate {self.arrival_rate:g}/s >= service_rate "
                f"{self.service_rate:g}/s (rho = {self.rho:.4g}); the model needs rho < 1"
            )

    def __repr__(self) -> str:
        return (
            f"LustreQueueModel(arrival_rate={self.arrival_rate!r}, "
            f"service_rate={self.service_rate!r}, bandwidth={self.bandwidth!r})"
        )

    @property
    def rho(self) -> float:
        """Utilisation lambda/gamma of each OST (dimensionless, < 1)."""
        return self.arrival_rate / self.service_rate

    @property
    def decay_rate(self) -> float:
        """a = gamma (1 - rho), per second: P(W > t) = rho exp(-a t)."""
        return self.service_rate - self.arrival_rate

    def max_wait_cdf(self, t, n):
        """P(max of n waits <= t) = (1 - rho exp(-a t))^n for t >= 0 (paper 004, Eq. 4)."""
        t = np.asarray(t, dtype=float)
        n = check.stripe_counts(n)
        with np.errstate(under="ignore"):
            cdf = (1.0 - self.rho * np.exp(-self.decay_rate * np.maximum(t, 0.0))) ** n
        return _scalar(np.where(t < 0, 0.0, cdf))

    def _max_wait(self, n, exact: bool):
        n = check.stripe_counts(n)
        table = _max_wait_table(self.rho, int(n.max()), exact)
        return _scalar(table[n - 1] / self.decay_rate)

    def expected_max_wait(self, n):
        """Exact E[max of n i.i.d. M/M/1 waits] in seconds.

        (1/a) sum_{j=1..n} (1 - (1-rho)^j) / j, which is paper 004's own integral
        (the line after Eq. 4) evaluated exactly.
        """
        return self._max_wait(n, exact=True)

    def expected_max_wait_paper(self, n):
        """Paper 004's printed closed form for E[max of n waits], in seconds.

        (1 - (1-rho)^n) / a * H_{n-1} + rho^n / (a n), with H the harmonic numbers.
        It equals the exact expectation for n = 1, 2 and overestimates it for
        n >= 3 (by less than -ln(rho)/a, the large-n limit).  Kept to reproduce the paper's Table III.
        """
        return self._max_wait(n, exact=False)

    def completion_time(self, M, n, exact: bool = True):
        """Expected seconds to write M bytes over n OSTs: E[max W] + M/(n V).

        ``exact=False`` uses the paper's closed form (Table III's T_m column).
        M and n broadcast; M may be a size string such as ``"50GB"``.
        """
        M = check.sizes(M)
        n = check.stripe_counts(n)
        return _scalar(self._max_wait(n, exact) + M / (n * self.bandwidth))

    def optimal_stripe_count(self, M, n_max: int, exact: bool = True) -> int:
        """The n in 1..n_max with the smallest expected completion time (first if tied)."""
        M = float(check.sizes(M))
        n_max = int(check.stripe_counts(check.count("n_max", n_max), "n_max"))
        n = np.arange(1, n_max + 1)
        return int(np.argmin(self.completion_time(M, n, exact=exact))) + 1

    def completion_time_quantile(self, M, n, q):
        """The q-quantile of the completion time in seconds, q in [0, 1].

        The wait part inverts F_max(t) = (1 - rho e^{-a t})^n (paper 004, Eq. 4):
        t_q = ln(rho / (1 - q^{1/n})) / a, or 0 when q <= (1 - rho)^n, the
        probability that no OST has a queue; M/(n V) is added.  q = 1 gives
        infinity.  M, n and q broadcast.
        """
        M = check.sizes(M)
        n = check.stripe_counts(n)
        level = q
        q = np.asarray(q, dtype=float)
        if np.any(~(q >= 0) | ~(q <= 1)):
            raise ModelError(f"quantile level q must be in [0, 1], got {level!r}")
        with np.errstate(divide="ignore"):
            # -expm1(log(q)/n) is 1 - q^{1/n} without cancellation near q = 1.
            busy_tail = -np.expm1(np.log(q) / n)
            wait = (np.log(self.rho) - np.log(busy_tail)) / self.decay_rate
        wait = np.where(q <= (1.0 - self.rho) ** n, 0.0, wait)
        return _scalar(wait + M / (n * self.bandwidth))

    def mean_above_quantile(self, M, n, q: float = 0.99) -> bool:
        """Whether the expected completion time exceeds its q-quantile: the mean is then carried by waits rarer
        than 1 - q, as with the rates of a fit that left no queue (rho near 0, issue 33)."""
        return bool(np.any(self.completion_time(M, n) > self.completion_time_quantile(M, n, q)))

    @classmethod
    def fit(cls, measurements, exact: bool = True) -> "LustreQueueModel":
        """Least-squares fit of lambda, gamma and V to measured (M bytes, n, seconds) triples.

        Seconds may be single runs or means.  For a fixed rho the model is linear
        in 1/a and 1/V, so those are solved exactly and only rho is searched
        (grid, then golden section).  Needs at least 3 triples with at least 2
        distinct stripe counts.  ``exact=False`` fits the paper's closed form.
        Returns a new model; raises ModelError when the best fit is not a
        stable queue with finite positive rates.
        """
        rows = [tuple(row) for row in measurements]
        if len(rows) < 3 or any(len(row) != 3 for row in rows):
            raise ModelError("fit needs at least 3 (M bytes, n, seconds) triples")
        sizes_column, n_column, seconds_column = zip(*rows, strict=True)
        M = check.sizes([float(check.sizes(m)) if isinstance(m, str) else m for m in sizes_column])
        n = check.stripe_counts(n_column)
        seconds = check.sizes(seconds_column, "seconds")
        if len(np.unique(n)) < 2:
            raise ModelError("fit needs measurements at 2 or more stripe counts to separate rho from 1/a")
        # Repeats of one (M, n) share a design row, so least squares on the group means
        # weighted by sqrt(count) has the same minimiser and costs O(groups) per rho.
        keys, group = np.unique(np.column_stack([M, n]), axis=0, return_inverse=True)
        counts = np.bincount(group)
        weight = np.sqrt(counts)
        target = weight * np.bincount(group, weights=seconds) / counts
        group_n = keys[:, 1].astype(np.int64)
        per_write = keys[:, 0] / group_n
        scale = max(float(per_write.max()), 1.0)
        n_max = int(group_n.max())

        def solve(rho):
            design = weight[:, None] * np.column_stack(
                [_max_wait_table(rho, n_max, exact)[group_n - 1], per_write / scale]
            )
            coef, _, rank, _ = np.linalg.lstsq(design, target, rcond=None)
            return float(np.sum((design @ coef - target) ** 2)), coef, rank

        grid = np.linspace(0.0, 1.0, 402)[1:-1]
        best = int(np.argmin([solve(rho)[0] for rho in grid]))
        lo = grid[best - 1] if best > 0 else 0.0
        hi = grid[best + 1] if best < len(grid) - 1 else 1.0
        inv_golden = (np.sqrt(5.0) - 1.0) / 2.0
        while hi - lo > 1e-13:
            left, right = hi - inv_golden * (hi - lo), lo + inv_golden * (hi - lo)
            if solve(left)[0] <= solve(right)[0]:
                hi = right
            else:
                lo = left
        rho = (lo + hi) / 2.0
        _, (inv_a, inv_bandwidth), rank = solve(rho)
        inv_bandwidth /= scale
        if rank >= 2 and inv_a > 0 and inv_bandwidth > 0 and rho <= RHO_FLOOR:
            raise ModelError(
                f"degenerate fit: rho = {rho:.3g} at its floor {RHO_FLOOR:g}, so no queue is left (1/a = "
                f"{inv_a:.4g} s): the times are an overhead plus a bandwidth term, not a queue"
            )
        if rank < 2 or not (inv_a > 0 and inv_bandwidth > 0 and rho < 1.0 - 1e-9):
            raise ModelError(
                f"measurements do not determine a stable queue: need times that grow with n at fixed M "
                f"and with M/n (best fit rho = {rho:.6g}, 1/a = {inv_a:.4g} s, 1/V = {inv_bandwidth:.4g} s/byte)"
            )
        service_rate = 1.0 / (inv_a * (1.0 - rho))
        return cls(rho * service_rate, service_rate, 1.0 / inv_bandwidth)
