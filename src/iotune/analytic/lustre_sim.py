"""Monte Carlo simulation of the striped-write model (paper 004, Sec. II-B, Table III's T_s).

Each OST is an independent single-server FIFO queue.  Many queues ("lanes")
run in parallel through Lindley's recursion (Lindley 1952)::

    W_{k+1} = max(0, W_k + S_k - A_{k+1})

with numpy, starting empty (paper 004's assumption 5).  After a burn-in every
lane is in steady state; a lane's wait is then recorded once every ``gap``
arrivals, so that records from the same lane are nearly independent.  A file
block is treated as one more arrival of the stream (the paper: "we treat the
entire job as one block"), so W is the wait an arriving request sees; with
Poisson arrivals that is also the time-average backlog (PASTA).

Unlike the analytic model, the simulation accepts non-exponential
inter-arrival and service times with the same means.
"""

import math
from typing import NamedTuple

import numpy as np

from iotune.analytic import _validate as check
from iotune.analytic.errors import ModelError
from iotune.analytic.lustre import LustreQueueModel

ARRIVALS = ("poisson", "deterministic", "lognormal")
SERVICES = ("exponential", "deterministic", "lognormal")
# 16 Ki lanes (128 KiB per float64 buffer) keep numpy's per-call overhead near 3 %
# while the working set stays in cache.
_MAX_LANES = 16384


class WaitSample(NamedTuple):
    """Steady-state waiting times and the work it took to get them."""

    waits: np.ndarray
    """Waiting times in seconds, i.i.d. up to the small lag-``gap`` correlation within a lane."""
    requests: int
    """Requests simulated (lanes x arrivals per lane), burn-in included."""


def _squared_cv(kind: str, sigma: float) -> float:
    """Squared coefficient of variation of the distribution ``kind``."""
    return {"deterministic": 0.0, "lognormal": math.expm1(sigma**2)}.get(kind, 1.0)


def _sampler(kind: str, mean: float, sigma: float, rng: np.random.Generator, lanes: int):
    """A function returning one variate per lane (or a scalar) with the given mean."""
    if kind == "deterministic":
        return lambda: mean
    buffer = np.empty(lanes)
    if kind == "lognormal":
        mu = math.log(mean) - sigma**2 / 2.0  # E[exp(N(mu, sigma^2))] = exp(mu + sigma^2/2)

        def lognormal():
            rng.standard_normal(out=buffer)
            np.multiply(buffer, sigma, out=buffer)
            np.add(buffer, mu, out=buffer)
            return np.exp(buffer, out=buffer)

        return lognormal

    def exponential():
        rng.standard_exponential(out=buffer)
        return buffer if mean == 1.0 else np.multiply(buffer, mean, out=buffer)

    return exponential


def stationary_waits(
    model: LustreQueueModel,
    count: int,
    seed: int = 0,
    arrival: str = "poisson",
    service: str = "exponential",
    *,
    sigma: float = 1.0,
    burn_in: int | None = None,
    gap: int | None = None,
) -> WaitSample:
    """``count`` steady-state waiting times (seconds) of one OST queue.

    ``arrival`` is "poisson", "deterministic" or "lognormal" inter-arrival times
    with mean 1/arrival_rate; ``service`` is "exponential", "deterministic" or
    "lognormal" service times with mean 1/service_rate; ``sigma`` is the
    lognormal shape.  ``burn_in`` and ``gap`` are arrivals per lane; by default
    10 and 3 relaxation times, rho/(1-sqrt(rho))^2 arrivals for M/M/1 (Morse
    1955), scaled by (c_a^2 + c_s^2)/2 when the variability is higher.  At
    rho = 0.8 the lag-``gap`` correlation of one lane's waits is about 1.5 %.
    """
    if not isinstance(model, LustreQueueModel):
        raise ModelError(f"model must be a LustreQueueModel, got {type(model).__name__}")
    if arrival not in ARRIVALS:
        raise ModelError(f"arrival must be one of {', '.join(ARRIVALS)}; got {arrival!r}")
    if service not in SERVICES:
        raise ModelError(f"service must be one of {', '.join(SERVICES)}; got {service!r}")
    count = check.count("count", count)
    sigma = check.positive("sigma", sigma)
    rho = model.rho
    relaxation = rho / (1.0 - math.sqrt(rho)) ** 2
    relaxation *= max(1.0, (_squared_cv(arrival, sigma) + _squared_cv(service, sigma)) / 2.0)
    burn_in = math.ceil(10 * relaxation) + 50 if burn_in is None else check.count("burn_in", burn_in, 0)
    gap = math.ceil(3 * relaxation) + 10 if gap is None else check.count("gap", gap)

    lanes = min(count, _MAX_LANES)
    epochs = -(-count // lanes)
    rng = np.random.default_rng(seed)
    # Time is in units of the mean inter-arrival time 1/lambda, so one mean is 1.
    draw_arrival = _sampler(arrival, 1.0, sigma, rng, lanes)
    draw_service = _sampler(service, rho, sigma, rng, lanes)
    wait = np.zeros(lanes)
    records = np.empty((epochs, lanes))
    for epoch in range(epochs):
        for _ in range(burn_in if epoch == 0 else gap):
            wait += draw_service()
            wait -= draw_arrival()
            np.maximum(wait, 0.0, out=wait)
        records[epoch] = wait
    waits = records.ravel()[:count] / model.arrival_rate
    return WaitSample(waits, lanes * (burn_in + (epochs - 1) * gap))


def simulate_completion_times(
    model: LustreQueueModel,
    M,
    n: int,
    samples: int,
    seed: int = 0,
    arrival: str = "poisson",
    service: str = "exponential",
    *,
    sigma: float = 1.0,
    burn_in: int | None = None,
    gap: int | None = None,
) -> np.ndarray:
    """``samples`` simulated completion times (seconds) of writing M bytes over n OSTs.

    Each sample is the largest of n independent steady-state OST waits plus
    M/(n V).  Keywords as in ``stationary_waits``.
    """
    M = float(check.sizes(M))
    n = int(check.stripe_counts(check.count("n", n)))
    samples = check.count("samples", samples)
    sample = stationary_waits(
        model, samples * n, seed, arrival, service, sigma=sigma, burn_in=burn_in, gap=gap
    )
    return sample.waits.reshape(samples, n).max(axis=1) + M / (n * model.bandwidth)


def mean_and_stderr(values) -> tuple[float, float]:
    """Sample mean and its standard error s/sqrt(N) (needs N >= 2)."""
    values = np.asarray(values, dtype=float).ravel()
    if values.size < 2:
        raise ModelError(f"mean_and_stderr needs at least 2 values, got {values.size}")
    return float(values.mean()), float(values.std(ddof=1) / math.sqrt(values.size))
