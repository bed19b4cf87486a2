"""Performance and cost prediction for an elastic block cache (paper 002, Sec. III-B to III-D).

Units, as in the paper: sizes in GB, times in seconds, bandwidths in MB/s.  A
disk of size N GB with reserved bandwidth B MB/s costs B * N per second, so a
bandwidth plays the role of a price per GB-second and a cost is in *adjusted
GB-seconds* (AGBs, Sec. III-B).  Dividing a size by a throughput needs MB per
GB: ``mb_per_gb`` defaults to 1024, the reading that reproduces every printed
digit of Table III (``shared reference elastic_cache.json``; 1000 does
not).

``completion_time`` is the paper's T (Sec. III-C), ``storage_cost`` its C(t)
(Sec. III-B), ``predict_static`` / ``predict_adaptive`` give T and C_a for one
cache size, ``sweep_cache_sizes`` and ``best_cache_size`` the selection of
Sec. III-D.  ``CalibrationTable`` holds the measured B_M(x) or D_M(x).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy.interpolate import RegularGridInterpolator

from iotune.analytic import cache_checks as check
from iotune.analytic.errors import ModelError

MB_PER_GB = 1024
"""Binary GB: the reading under which Table III's static ratios match to all printed digits."""


class DeadlineError(ModelError):
    """No candidate cache size meets the completion-time deadline T_max (paper 002, Sec. III-D)."""

    def __init__(self, deadline_s: float, fastest: Prediction):
        self.deadline_s = deadline_s
        self.fastest = fastest
        where = "" if fastest.cache_gb is None else f" with M(Sc) = {fastest.cache_gb:g} GB"
        super().__init__(
            f"no cache size meets the deadline T_max = {deadline_s:g} s; "
            f"the fastest achievable completion time is {fastest.completion_s:.6g} s{where}"
        )

    def __reduce__(self):
        return type(self), (self.deadline_s, self.fastest)


def storage_cost(duration_s, backing_mbps, backing_gb, cache_mbps=0.0, cache_gb_s=0.0) -> float:
    """Adjusted storage accumulation C(t) of one VM in AGBs (paper 002, Sec. III-B).

    C(t) = B_b * N * t + B_c * integral_0^t M(x) dx, where ``cache_gb_s`` is the
    integral of the caching device's size M(x) in GB over time in seconds
    (GB*s; M = 0 while no cache is attached).  Bandwidths in MB/s, N in GB, t in s.
    """
    t = check.nonnegative("duration_s", duration_s)
    bb = check.positive("backing_mbps", backing_mbps)
    n = check.nonnegative("backing_gb", backing_gb)
    bc = check.nonnegative("cache_mbps", cache_mbps)
    m_int = check.nonnegative("cache_gb_s", cache_gb_s)
    return bb * n * t + bc * m_int


def completion_time(compute_s, checkpoints, checkpoint_gb, throughput_mbps, *, mb_per_gb=MB_PER_GB) -> float:
    """Completion time T = I*I_t + K * S_c / B(S_c) in seconds (paper 002, Sec. III-C).

    ``compute_s`` is I*I_t (the run without checkpoints), ``checkpoints`` is K,
    ``checkpoint_gb`` is S_c per VM in GB and ``throughput_mbps`` is B(S_c), the
    sustained write throughput for a dataset of that size, in MB/s.
    """
    compute = check.nonnegative("compute_s (I*It)", compute_s)
    k = check.count("checkpoints (K)", checkpoints, minimum=0)
    sc = check.nonnegative("checkpoint_gb (Sc)", checkpoint_gb)
    b = check.positive("throughput_mbps (B(Sc))", throughput_mbps)
    mb = check.positive("mb_per_gb", mb_per_gb)
    return compute + k * sc * mb / b


@dataclass(frozen=True)
class CheckpointWorkload:
    """A bulk-synchronous application that checkpoints at regular intervals (paper 002, Sec. III-C).

    n_vm VMs each dump ``initial_gb`` (S_i) once at start, compute for
    ``compute_s`` (I*I_t) in total and write ``checkpoints`` (K) checkpoints of
    ``checkpoint_gb`` (S_c) each.
    """

    n_vm: int
    compute_s: float
    checkpoints: int
    initial_gb: float
    checkpoint_gb: float

    def __post_init__(self):
        check.count("n_vm", self.n_vm)
        check.nonnegative("compute_s (I*It)", self.compute_s)
        check.count("checkpoints (K)", self.checkpoints, minimum=0)
        check.nonnegative("initial_gb (Si)", self.initial_gb)
        check.nonnegative("checkpoint_gb (Sc)", self.checkpoint_gb)


@dataclass(frozen=True)
class Prediction:
    """Predicted completion time (s) and total cost C_a (AGBs) for one storage set-up."""

    completion_s: float
    cost_agbs: float
    cache_gb: float | None = None
    """M(S_c) in GB for an adaptive set-up, None for a static one."""


class CalibrationTable:
    """Measured B_M(x) (MB/s) or D_M(x) (s) on a grid of dataset sizes x and cache sizes M (paper 002, Sec. III-C/D).

    ``values[i, j]`` was measured writing a dataset of ``dataset_gb[i]`` GB with
    a caching device of ``cache_gb[j]`` GB.  Between grid points the table is
    bilinear (scipy's ``RegularGridInterpolator``); outside the measured range it
    raises ModelError unless ``extrapolate=True``, in which case it extends the
    edge cells linearly (a throughput extrapolated far out can turn negative,
    which is then an error).
    """

    def __init__(self, dataset_gb, cache_gb, values, *, quantity="B", extrapolate=False):
        self.quantity = str(quantity)
        self.extrapolate = bool(extrapolate)
        self.dataset_gb = self._axis("dataset_gb", dataset_gb)
        self.cache_gb = self._axis("cache_gb", cache_gb)
        try:
            table = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            raise ModelError(f"{self.quantity} values must be numbers, got {values!r}") from None
        shape = (self.dataset_gb.size, self.cache_gb.size)
        if table.shape != shape:
            raise ModelError(f"{self.quantity} values must have shape {shape} (dataset x cache), got {table.shape}")
        if not np.all(np.isfinite(table)) or np.any(table <= 0):
            raise ModelError(f"{self.quantity} values must be finite and > 0")
        self.values = table
        self._interp = RegularGridInterpolator(
            (self.dataset_gb, self.cache_gb), table, method="linear", bounds_error=False, fill_value=None
        )

    def _axis(self, name, points) -> np.ndarray:
        try:
            axis = np.asarray(points, dtype=float)
        except (TypeError, ValueError):
            raise ModelError(f"{self.quantity}: {name} must be sizes in GB, got {points!r}") from None
        if axis.ndim != 1 or axis.size < 2:
            raise ModelError(f"{self.quantity}: {name} needs at least 2 grid points, got {points!r}")
        if not np.all(np.isfinite(axis)) or np.any(axis < 0) or np.any(np.diff(axis) <= 0):
            raise ModelError(f"{self.quantity}: {name} must be finite, >= 0 and strictly increasing, got {points!r}")
        return axis

    def __call__(self, x_gb, m_gb) -> float:
        """The quantity at dataset size ``x_gb`` and cache size ``m_gb`` (both GB)."""
        x = check.nonnegative("x_gb", x_gb)
        m = check.nonnegative("m_gb", m_gb)
        if not self.extrapolate:
            for name, v, axis in (("dataset size", x, self.dataset_gb), ("cache size", m, self.cache_gb)):
                if not axis[0] <= v <= axis[-1]:
                    raise ModelError(
                        f"{self.quantity}: {name} {v:g} GB is outside the calibrated range "
                        f"[{axis[0]:g}, {axis[-1]:g}] GB (pass extrapolate=True to extend linearly)"
                    )
        value = float(self._interp([[x, m]])[0])
        if not value > 0:
            raise ModelError(f"{self.quantity}({x:g} GB | M = {m:g} GB) extrapolates to {value:g}, not > 0")
        return value


def _lookup(name, table, x_gb, m_gb) -> float:
    """A calibration value: a CalibrationTable (or any callable f(x, M)) or one constant number."""
    if callable(table):
        return table(x_gb, m_gb)
    if isinstance(table, numbers.Real) and not isinstance(table, bool):
        return check.positive(name, table)
    raise ModelError(f"{name} must be a number or a CalibrationTable, got {table!r}")


def predict_static(workload: CheckpointWorkload, bandwidth_mbps, disk_gb, *, mb_per_gb=MB_PER_GB) -> Prediction:
    """T and C_a for a single disk of ``bandwidth_mbps`` and ``disk_gb`` (static-slow / static-fast, Sec. IV-E).

    The paper sets B_c = 0 and B(x) = the disk's bandwidth; the cost is then
    C_a = n * B * N * (T + S_i / B), see ``predict_adaptive`` for the S_i term.
    """
    b = check.positive("bandwidth_mbps", bandwidth_mbps)
    n_gb = check.nonnegative("disk_gb", disk_gb)
    mb = check.positive("mb_per_gb", mb_per_gb)
    t = completion_time(workload.compute_s, workload.checkpoints, workload.checkpoint_gb, b, mb_per_gb=mb)
    initial_s = workload.initial_gb * mb / b
    return Prediction(t, workload.n_vm * b * n_gb * (t + initial_s))


def predict_adaptive(
    workload: CheckpointWorkload,
    backing_mbps,
    backing_gb,
    cache_mbps,
    throughput,
    attach_duration,
    *,
    initial_cache_gb,
    checkpoint_cache_gb,
    mb_per_gb=MB_PER_GB,
) -> Prediction:
    """T and C_a with an adaptive caching device (paper 002, Sec. III-C).

    ``throughput`` is B_M(x) in MB/s and ``attach_duration`` D_M(x) in s, each a
    CalibrationTable (or a callable f(x_gb, m_gb), or one number);
    ``initial_cache_gb`` is M(S_i) and ``checkpoint_cache_gb`` M(S_c).

        C   = B_b N (T + S_i / B(S_i)) + B_c M(S_i) D(S_i) + K B_c M(S_c) D(S_c)
        C_a = n C

    The paper prints S_i / D(S_i) in the first term, which is dimensionless
    (GB / s).  The reference file shows that S_i / B(S_i), the time the initial
    dump keeps the run going, is the reading under which three of the four
    static rows of Table IV reproduce all printed digits; it is used here.
    """
    bb = check.positive("backing_mbps", backing_mbps)
    n_gb = check.nonnegative("backing_gb", backing_gb)
    bc = check.positive("cache_mbps", cache_mbps)
    m_si = check.positive("initial_cache_gb (M(Si))", initial_cache_gb)
    m_sc = check.positive("checkpoint_cache_gb (M(Sc))", checkpoint_cache_gb)
    mb = check.positive("mb_per_gb", mb_per_gb)
    si, sc = workload.initial_gb, workload.checkpoint_gb
    b_sc = _lookup("B(Sc)", throughput, sc, m_sc)
    t = completion_time(workload.compute_s, workload.checkpoints, sc, b_sc, mb_per_gb=mb)
    initial_s = si * mb / _lookup("B(Si)", throughput, si, m_si) if si > 0 else 0.0
    cost = (
        bb * n_gb * (t + initial_s)
        + (bc * m_si * _lookup("D(Si)", attach_duration, si, m_si) if si > 0 else 0.0)
        + workload.checkpoints * bc * m_sc * _lookup("D(Sc)", attach_duration, sc, m_sc)
    )
    return Prediction(t, workload.n_vm * cost, cache_gb=m_sc)


def sweep_cache_sizes(
    workload: CheckpointWorkload,
    backing_mbps,
    backing_gb,
    cache_mbps,
    throughput,
    attach_duration,
    cache_sizes_gb: Iterable,
    *,
    initial_cache_gb,
    mb_per_gb=MB_PER_GB,
) -> list[Prediction]:
    """``predict_adaptive`` for every M(S_c) in ``cache_sizes_gb`` (the what-if study of Sec. IV-E, Fig. 6)."""
    sizes = list(cache_sizes_gb)
    if not sizes:
        raise ModelError("cache_sizes_gb is empty")
    return [
        predict_adaptive(
            workload,
            backing_mbps,
            backing_gb,
            cache_mbps,
            throughput,
            attach_duration,
            initial_cache_gb=initial_cache_gb,
            checkpoint_cache_gb=m,
            mb_per_gb=mb_per_gb,
        )
        for m in sizes
    ]


def best_cache_size(candidates: Iterable[Prediction], deadline) -> Prediction:
    """The candidate of least cost C_a among those with T <= ``deadline`` (T_max, s) (paper 002, Sec. III-D).

    Ties go to the faster, then the smaller cache.  Raises DeadlineError, which
    names the fastest achievable time, when no candidate meets the deadline.
    """
    t_max = check.positive("deadline (T_max)", deadline)
    pool = list(candidates)
    if not pool:
        raise ModelError("no candidate cache sizes given")
    for p in pool:
        if not isinstance(p, Prediction) or not (math.isfinite(p.completion_s) and math.isfinite(p.cost_agbs)):
            raise ModelError(f"candidates must be Predictions with finite time and cost, got {p!r}")
    feasible = [p for p in pool if p.completion_s <= t_max]
    if not feasible:
        raise DeadlineError(t_max, min(pool, key=lambda p: p.completion_s))
    return min(feasible, key=lambda p: (p.cost_agbs, p.completion_s, p.cache_gb if p.cache_gb is not None else -1.0))
