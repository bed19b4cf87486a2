"""Maximum-likelihood fit of :class:`StripedPlacementModel` to single runs, with its quality and degeneracy checks.

A run's likelihood is the mixture over placements (each with its probability) of
lognormal densities centred on that placement's time, so a bimodal set of repeats
(objects on one server or on three) is what the model expects, not noise to
average away.  Parameters are searched in bounded coordinates (log bandwidth,
seconds, milliseconds per piece, log sigma, log client bandwidth, milliseconds per object; then rho and log 1/a
for the queue).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from iotune.analytic.errors import ModelError
from iotune.analytic.lustre import LustreQueueModel
from iotune.analytic.placement import ServerLoads
from iotune.analytic.striped_placement import (
    BOUNDS,
    QUEUE_LR,
    StripedPlacementModel,
    StripedWrite,
    _times,
    queue_from,
)

SHARE_FLOOR = 0.01
"""A fit whose busiest-server term is under this share of the mean run time is degenerate."""
BAND = (0.1, 0.9)
"""The predictive band whose coverage of single runs the fit reports."""


def _runs(runs) -> dict[StripedWrite, np.ndarray]:
    groups: dict[StripedWrite, list[float]] = {}
    for row in runs:
        if not (isinstance(row, tuple | list) and len(row) == 2 and isinstance(row[0], StripedWrite)):
            raise ModelError("fit takes (StripedWrite, seconds) pairs")
        seconds = row[1]
        if isinstance(seconds, bool) or not isinstance(seconds, numbers.Real) or not (
                math.isfinite(float(seconds)) and float(seconds) > 0):
            raise ModelError(f"run seconds must be a finite number > 0, got {seconds!r}")
        groups.setdefault(row[0], []).append(float(seconds))
    if sum(len(v) for v in groups.values()) < 4:
        raise ModelError("fit needs at least 4 runs")
    if len(groups) < 2:
        raise ModelError("fit needs runs of at least 2 layouts (or workloads) to separate bandwidth from overhead")
    return {write: np.array(times) for write, times in groups.items()}


def _unpack(theta, with_queue):
    bandwidth, overhead, piece, sigma = math.exp(theta[0]), theta[1], theta[2] / 1e3, math.exp(theta[3])
    client, per_object = math.exp(theta[4]), theta[5] / 1e3
    queue = (theta[6], math.exp(theta[7])) if with_queue else None
    return bandwidth, overhead, piece, sigma, client, per_object, queue


class _Flat:
    """Every write's placements in one array, and per run the row of its write's placements (padded), so one
    likelihood evaluation is a few numpy operations whatever the number of writes."""

    def __init__(self, loads, groups):
        servers = max(L.bytes.shape[1] for L in loads)

        def padded(arrays):  # a server holding nothing changes neither the busiest load nor the servers used
            return np.concatenate([np.pad(a, ((0, 0), (0, servers - a.shape[1]))) for a in arrays])

        self.loads = ServerLoads(padded([L.bytes for L in loads]), padded([L.pieces for L in loads]),
                                 np.concatenate([L.weights for L in loads]), all(L.exact for L in loads),
                                 np.concatenate([L.client_bytes for L in loads]), padded([L.objects for L in loads]))
        width = max(L.weights.size for L in loads)
        rows, start = [], 0
        for L in loads:
            row = np.full(width, -1)  # -1: the padding placement, probability 0
            row[:L.weights.size] = np.arange(start, start + L.weights.size)
            rows.append(row)
            start += L.weights.size
        self.log_weights = np.append(np.log(self.loads.weights), -np.inf)
        self.times = np.concatenate(list(groups))
        self.log_times = np.log(self.times)
        self.index = np.concatenate([np.repeat(row[None, :], len(t), axis=0) for row, t in zip(rows, groups,
                                                                                              strict=True)])


def _negative_log_likelihood(theta, flat: _Flat, with_queue):
    bandwidth, overhead, piece, sigma, client, per_object, queue = _unpack(theta, with_queue)
    try:
        model_queue = None if queue is None else queue_from(queue[0], queue[1], bandwidth)
    except ModelError:
        return 1e300
    times = _times(flat.loads, bandwidth, overhead, piece, model_queue, client, per_object)
    centre = np.append(np.log(times) - sigma**2 / 2, 0.0)
    z = (flat.log_times[:, None] - centre[flat.index]) / sigma
    terms = -0.5 * z * z + flat.log_weights[flat.index]
    top = terms.max(axis=1)
    per_run = top + np.log(np.exp(terms - top[:, None]).sum(axis=1))
    total = float(np.sum(per_run - flat.log_times)) - flat.times.size * (math.log(sigma) + 0.5 * math.log(2 * math.pi))
    return -total if math.isfinite(total) else 1e300


def _minimise(data, start, bounds, with_queue, iterations=300):
    from scipy.optimize import minimize

    best = None
    for x0 in start:
        x0 = np.clip(x0, [b[0] for b in bounds], [b[1] for b in bounds])
        found = minimize(_negative_log_likelihood, x0, args=(data, with_queue), method="L-BFGS-B", bounds=bounds,
                         options={"maxiter": iterations})
        if best is None or found.fun < best.fun:
            best = found
    return best


def _at(value, low, high, log=False) -> str:
    if log:
        value, low, high = math.log(value), math.log(low), math.log(high)
    span = high - low
    if value <= low + 1e-3 * span:
        return "low"
    if value >= high - 1e-3 * span:
        return "high"
    return ""


def fit_striped(runs, *, servers: int = 3, replicas: int = 1, placement: str = "crush",
                file_system: str = "cephfs", draws: int = 1024, seed: int = 0) -> StripedPlacementModel:
    """Maximum-likelihood fit of a StripedPlacementModel to ``runs``, (StripedWrite, seconds) pairs of single runs.

    Fits V, t0, t_piece, t_object, sigma and the client's bandwidth C (at its upper bound: no client limit); then
    adds
    paper 004's queue (rho, 1/a) and keeps it only when it raises
    the likelihood significantly (ratio test, 95 %) with both inside their bounds.  The model's ``fit_`` says
    how well it fits.  Raises ModelError "degenerate fit: ..." when the bandwidth, the noise or the overhead
    ends at a bound: the runs do not determine the model.
    """
    cls = StripedPlacementModel
    groups = _runs(runs)
    base = cls(1e6, servers=servers, replicas=replicas, placement=placement, file_system=file_system, draws=draws,
               seed=seed)
    writes = list(groups)
    loads = [base.loads(w) for w in writes]
    data = _Flat(loads, [groups[w] for w in writes])
    # a start from least squares of the mean times on the expected busiest bytes
    busiest = np.array([[1.0, float(L.bytes.max(axis=1) @ L.weights)] for L in loads])
    means = np.array([t.mean() for t in groups.values()])
    coef = np.linalg.lstsq(busiest[:, :2], means, rcond=None)[0]
    bandwidth0 = 1.0 / coef[1] if coef[1] > 0 else 1e9
    overhead0 = max(float(coef[0]), 0.0)
    low, high = BOUNDS["bandwidth"]
    client_bounds = tuple(math.log(b) for b in BOUNDS["client_bandwidth"])
    bounds = [(math.log(low), math.log(high)), BOUNDS["overhead_s"], (0.0, BOUNDS["piece_s"][1] * 1e3),
              (math.log(BOUNDS["sigma"][0]), math.log(BOUNDS["sigma"][1])), client_bounds,
              (0.0, BOUNDS["object_s"][1] * 1e3)]
    # the client's fastest rate seen, and no client limit at all
    fastest = max(float(L.client_bytes[0]) / float(np.min(t)) for L, t in zip(loads, groups.values(), strict=True))
    starts = [np.array([math.log(bandwidth0), overhead0, 0.0, math.log(0.2), c, 0.0])
              for c in (client_bounds[1], math.log(fastest))]
    plain = _minimise(data, starts, bounds, False)
    queue_bounds = bounds + [BOUNDS["rho"], tuple(math.log(b) for b in BOUNDS["wait_scale_s"])]
    scale0 = math.log(max(0.05 * float(means.mean()), 1e-5))
    # the queue's two parameters are flat where no queue shows: a short search, its result checked below
    queued = _minimise(data, [np.concatenate([plain.x, [0.5, scale0]])], queue_bounds, True, iterations=60)
    ratio = 2.0 * (plain.fun - queued.fun)
    bandwidth, overhead, piece, sigma, _, _, queue = _unpack(queued.x, True)
    queue_edges = [name for name, value, (lo, hi), log in (("rho", queue[0], BOUNDS["rho"], False),
                                                          ("1/a", queue[1], BOUNDS["wait_scale_s"], True))
                   if _at(value, lo, hi, log)]
    keep = ratio > QUEUE_LR and not queue_edges
    model_queue: LustreQueueModel | None = None
    if keep:
        model_queue = queue_from(queue[0], queue[1], bandwidth)
        share = float(model_queue.expected_max_wait(1)) / float(means.mean())
        keep = share >= 0.01
    if keep:
        note = (f"kept: rho {queue[0]:.3g}, 1/a {queue[1]:.3g} s (likelihood ratio {ratio:.1f} > {QUEUE_LR})")
        theta, chosen = queued.x, queued
    else:
        why = (f"at the bound of {', '.join(queue_edges)}" if queue_edges
               else f"likelihood ratio {ratio:.2f} <= {QUEUE_LR}" if ratio <= QUEUE_LR
               else "its waits are under 1% of the run time")
        note = f"left out: the runs show no queue ({why})"
        theta, chosen = plain.x, plain
        model_queue = None
    bandwidth, overhead, piece, sigma, client, per_object, _ = _unpack(theta, False)
    client_limit: float | None = client
    if _at(client, *BOUNDS["client_bandwidth"], log=True) == "high":
        client_limit = None
        client_note = "none: the client never limited these runs"
    else:
        client_note = f"{client / 1e6:.4g} MB/s"
    if not np.all(np.isfinite(theta)):
        raise ModelError("fit did not converge to finite parameters")
    degenerate = []
    if edge := _at(bandwidth, *BOUNDS["bandwidth"], log=True):
        degenerate.append(f"bandwidth {bandwidth:.3g} B/s at its {edge} bound: the times do not follow the "
                          "busiest server's bytes")
    else:
        streaming = float(np.mean([L.bytes.max(axis=1) @ L.weights for L in loads])) / bandwidth
        if streaming < SHARE_FLOOR * float(means.mean()):
            degenerate.append(f"the busiest server's bytes at {bandwidth:.3g} B/s take {streaming:.3g} s of runs of "
                              f"{float(means.mean()):.3g} s: the times do not follow where the bytes land")
    if edge := _at(sigma, *BOUNDS["sigma"], log=True):
        degenerate.append(f"noise sigma {sigma:.3g} at its {edge} bound")
    for key, name, value in (("overhead_s", "overhead", overhead), ("piece_s", "time per piece", piece),
                             ("object_s", "time per object", per_object)):
        if _at(value, *BOUNDS[key]) == "high":
            degenerate.append(f"{name} {value:.3g} s at its upper bound")
    if _at(client, *BOUNDS["client_bandwidth"], log=True) == "low":
        degenerate.append(f"client bandwidth {client:.3g} B/s at its lower bound")
    if degenerate:
        raise ModelError("degenerate fit: " + "; ".join(degenerate))
    model = cls(bandwidth, overhead, piece, sigma, model_queue, client_bandwidth=client_limit, object_s=per_object,
                servers=servers,
                replicas=replicas,
                placement=placement, file_system=file_system, draws=draws, seed=seed)
    model.fit_ = quality(model, groups) | {
        "log_likelihood_per_run": round(-float(chosen.fun) / sum(len(t) for t in groups.values()), 4),
        "queue": note,
        "client": client_note,
        "at_zero": [name for name, value in (("overhead_s", overhead), ("piece_s", piece), ("object_s", per_object))
                    if value <= 1e-9],
        "degenerate": [],
    }
    return model


def quality(model, groups: dict[StripedWrite, np.ndarray]) -> dict:
    """Runs, layouts, Spearman rho of predicted against measured mean per write, R^2 of those means, and the
    share of single runs inside the predicted 10-90 % band."""
    from scipy.stats import spearmanr

    predicted, measured, inside, runs = [], [], 0, 0
    for write, times in groups.items():
        predicted.append(model.mean(write))
        measured.append(float(np.mean(times)))
        low, high = model.quantiles(write, BAND)
        inside += int(np.sum((times >= low) & (times <= high)))
        runs += len(times)
    predicted_a, measured_a = np.array(predicted), np.array(measured)
    rho = spearmanr(predicted_a, measured_a).statistic if len(groups) > 2 else float("nan")
    residual = float(np.sum((measured_a - predicted_a) ** 2))
    spread = float(np.sum((measured_a - measured_a.mean()) ** 2))
    return {"runs": runs, "layouts": len(groups),
            "spearman": None if not np.isfinite(rho) else round(float(rho), 4),
            "r2_means": None if spread == 0 else round(1.0 - residual / spread, 4),
            "band_10_90": round(inside / runs, 4)}
