"""Time of a striped write from where its bytes land: the busiest server's load under the file system's placement.

For one write (``files`` files of ``file_bytes`` each, one layout) and one placement
of its objects on the servers (:mod:`iotune.analytic.placement`), server s holds
B_s bytes in P_s stripe-unit pieces of O_s objects and the write takes::

    T = t0 + E[max of k waits] + max(max_s (B_s / V + P_s * t_piece + O_s * t_object), D / C)

seconds: ``overhead_s`` t0 (open, fsync, close), the expected largest wait of the k
servers holding data (paper 004, Sec. II-B: M/M/1 queues, ``queue`` a
:class:`LustreQueueModel`; only where the runs support one), the busiest server
writing its bytes at ``bandwidth`` V (bytes/s per server) with ``piece_s`` per
piece and ``object_s`` per object (each object a server creates and syncs),
unless the client cannot send the write's D bytes faster than
``client_bandwidth`` C (bytes/s; None: no such limit).  A run is T of a random
placement times lognormal noise of mean 1 and log standard deviation ``sigma``, so
the model predicts a distribution (the mixture over placements), not only a mean: a
stripe count 3 file whose objects landed on one server is the slow repeat, not an
outlier.  Paper 004's future work (Sec. VII) states the same busiest-OST form with
random OST assignment.

Stripe count, stripe unit and object size enter only through the objects' sizes,
pieces and number, so the model ranks them together.  ``fit`` maximises the likelihood
of the runs' times under that mixture, within bounds that keep every parameter
physical, and refuses a degenerate fit (:func:`iotune.analytic.striped_fit.fit_striped`).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from iotune.analytic import _validate as check
from iotune.analytic.errors import ModelError
from iotune.analytic.lustre import LustreQueueModel
from iotune.analytic.placement import FILE_SYSTEMS, PLACEMENTS, ServerLoads, object_bytes, placed_loads, server_loads

KIND = "striped-placement"
VERSION = 1
MAX_SERVERS = 4096
# (low, high) of each fitted parameter: bytes/s, bytes/s, s, s per piece, log-sd, utilisation, s
BOUNDS = {"bandwidth": (1e3, 1e12), "client_bandwidth": (1e3, 1e12), "overhead_s": (0.0, 1e5), "piece_s": (0.0, 10.0),
          "object_s": (0.0, 10.0), "sigma": (1e-3, 3.0), "rho": (1e-3, 0.999), "wait_scale_s": (1e-6, 1e5)}
QUEUE_LR = 5.99
"""Likelihood-ratio threshold for keeping the queue: chi-square, 2 degrees of freedom, 95 %."""


@dataclass(frozen=True)
class StripedWrite:
    """``files`` files of ``file_bytes`` bytes each, written at once under one layout (bytes); ``servers`` and
    ``replicas`` (the data pool's copies) when this write's file system differs from the model's own."""

    files: int
    file_bytes: int
    stripe_count: int
    stripe_unit: int
    object_size: int
    servers: int | None = None
    replicas: int | None = None

    def layout(self) -> tuple[int, int, int]:
        return (self.stripe_count, self.stripe_unit, self.object_size)


def _bounded(name: str, value) -> float:
    low, high = BOUNDS[name]
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not low <= float(value) <= high:
        raise ModelError(f"{name} must be a number in [{low:g}, {high:g}], got {value!r}")
    return float(value)


class StripedPlacementModel:
    """See the module docstring.  ``servers``, ``replicas``, ``placement`` and ``file_system`` describe the file
    system and are not fitted; ``draws`` and ``seed`` the Monte Carlo sample used where exact enumeration of
    placements is too large."""

    def __init__(self, bandwidth: float, overhead_s: float = 0.0, piece_s: float = 0.0, sigma: float = 0.1,
                 queue: LustreQueueModel | None = None, *, client_bandwidth: float | None = None,
                 object_s: float = 0.0,
                 servers: int = 3, replicas: int = 1,
                 placement: str = "crush", file_system: str = "cephfs", draws: int = 2048, seed: int = 0):
        self.bandwidth = _bounded("bandwidth", bandwidth)
        self.overhead_s = _bounded("overhead_s", overhead_s)
        self.piece_s = _bounded("piece_s", piece_s)
        self.object_s = _bounded("object_s", object_s)
        self.sigma = _bounded("sigma", sigma)
        self.queue = queue
        self.client_bandwidth = None if client_bandwidth is None else _bounded("client_bandwidth", client_bandwidth)
        self.servers = check.count("servers", servers)
        if self.servers > MAX_SERVERS:
            raise ModelError(f"servers must be at most {MAX_SERVERS}, got {servers!r}")
        self.replicas = check.count("replicas", replicas)
        if placement not in PLACEMENTS or file_system not in FILE_SYSTEMS:
            raise ModelError(f"placement must be one of {', '.join(PLACEMENTS)} and file_system one of "
                             f"{', '.join(FILE_SYSTEMS)}, got {placement!r}, {file_system!r}")
        self.placement = placement
        self.file_system = file_system
        self.draws = check.count("draws", draws)
        self.seed = int(seed)
        self._loads: dict[StripedWrite, ServerLoads] = {}
        self.fit_: dict | None = None
        """How the fit went (``fit`` sets it; None for a model built from numbers)."""

    def __repr__(self) -> str:
        return (f"StripedPlacementModel(bandwidth={self.bandwidth:.6g}, overhead_s={self.overhead_s:.6g}, "
                f"piece_s={self.piece_s:.6g}, object_s={self.object_s:.6g}, sigma={self.sigma:.4g}, "
                f"queue={self.queue!r}, "
                f"client_bandwidth={self.client_bandwidth!r}, servers={self.servers}, "
                f"replicas={self.replicas}, placement={self.placement!r})")

    def loads(self, write: StripedWrite) -> ServerLoads:
        """The per-server bytes and pieces of ``write`` over its placements (cached)."""
        if write not in self._loads:
            files = check.count("files", write.files)
            one = object_bytes(write.file_bytes, write.stripe_count, write.stripe_unit, write.object_size,
                               self.file_system)
            servers = self.servers if write.servers is None else check.count("servers", write.servers)
            if servers > MAX_SERVERS:
                raise ModelError(f"servers must be at most {MAX_SERVERS}, got {servers!r}")
            replicas = self.replicas if write.replicas is None else write.replicas
            self._loads[write] = server_loads([one] * files, servers, replicas, self.placement, draws=self.draws,
                                              seed=self.seed)
        return self._loads[write]

    def placement_times(self, write: StripedWrite) -> tuple[np.ndarray, np.ndarray]:
        """Seconds of ``write`` for each placement (noise-free) and each placement's probability."""
        return _times(self.loads(write), self.bandwidth, self.overhead_s, self.piece_s, self.queue,
                      self.client_bandwidth, self.object_s), self.loads(write).weights

    def placed_time(self, write: StripedWrite, where) -> float:
        """Seconds of ``write`` (noise-free) when its objects are known to be where ``where`` says: per file, the
        server of each of its written objects (:func:`iotune.analytic.placement.placed_loads`)."""
        files = check.count("files", write.files)
        one = object_bytes(write.file_bytes, write.stripe_count, write.stripe_unit, write.object_size,
                           self.file_system)
        servers = self.servers if write.servers is None else check.count("servers", write.servers)
        loads = placed_loads([one] * files, where, servers)
        return float(_times(loads, self.bandwidth, self.overhead_s, self.piece_s, self.queue, self.client_bandwidth,
                            self.object_s)[0])

    def mean(self, write: StripedWrite) -> float:
        """Expected seconds (noise has mean 1)."""
        times, weights = self.placement_times(write)
        return float(np.dot(times, weights))

    def quantiles(self, write: StripedWrite, levels) -> np.ndarray:
        """Seconds at each quantile level in (0, 1) of the mixture over placements of lognormal noise."""
        from scipy.special import ndtr

        levels = np.asarray(levels, dtype=float)
        if levels.size == 0 or np.any(~(levels > 0) | ~(levels < 1)):
            raise ModelError(f"quantile levels must be in (0, 1), got {levels.tolist()!r}")
        times, weights = self.placement_times(write)
        centre = np.log(times) - self.sigma**2 / 2
        low = np.full(levels.shape, centre.min() - 10 * self.sigma)
        high = np.full(levels.shape, centre.max() + 10 * self.sigma)
        for _ in range(64):
            middle = (low + high) / 2
            cdf = ndtr((middle[:, None] - centre[None, :]) / self.sigma) @ weights
            below = cdf < levels
            low = np.where(below, middle, low)
            high = np.where(below, high, middle)
        return np.exp((low + high) / 2)

    # -- stored form ---------------------------------------------------------------------------------------

    def to_dict(self) -> dict:
        """Plain numbers and names, what the store keeps (no code, no pickle)."""
        queue = None if self.queue is None else {"arrival_rate": self.queue.arrival_rate,
                                                 "service_rate": self.queue.service_rate}
        return {"kind": KIND, "version": VERSION, "bandwidth": self.bandwidth, "overhead_s": self.overhead_s,
                "piece_s": self.piece_s, "object_s": self.object_s, "sigma": self.sigma, "queue": queue,
                "client_bandwidth": self.client_bandwidth, "servers": self.servers,
                "replicas": self.replicas, "placement": self.placement, "file_system": self.file_system,
                "draws": self.draws, "seed": self.seed, "fit": self.fit_}

    @classmethod
    def from_dict(cls, data) -> StripedPlacementModel:
        """The model ``to_dict`` wrote; every field checked, an unknown one refused (one ModelError line)."""
        if not isinstance(data, dict) or data.get("kind") != KIND or data.get("version") != VERSION:
            raise ModelError(f"not a stored {KIND} model (version {VERSION})")
        known = set(cls(1e6).to_dict())
        extra = sorted(set(data) - known)
        if extra:
            raise ModelError(f"stored {KIND} model has unknown fields: {', '.join(map(str, extra))}")
        queue = data.get("queue")
        if queue is not None:
            if not isinstance(queue, dict) or set(queue) != {"arrival_rate", "service_rate"}:
                raise ModelError("stored queue must have arrival_rate and service_rate")
            queue = LustreQueueModel(queue["arrival_rate"], queue["service_rate"], data.get("bandwidth", 1.0))
        draws = data.get("draws", 2048)
        if not isinstance(draws, int) or not 1 <= draws <= 1 << 16:
            raise ModelError(f"draws must be an integer in 1..65536, got {draws!r}")
        seed = data.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ModelError(f"seed must be an integer, got {seed!r}")
        try:
            model = cls(data.get("bandwidth", 0.0), data.get("overhead_s", 0.0), data.get("piece_s", 0.0),
                        data.get("sigma", 0.1), queue, client_bandwidth=data.get("client_bandwidth"),
                        object_s=data.get("object_s", 0.0),
                        servers=data.get("servers", 3),
                        replicas=data.get("replicas", 1), placement=data.get("placement", "crush"),
                        file_system=data.get("file_system", "cephfs"), draws=draws, seed=seed)
        except TypeError as error:
            raise ModelError(f"stored {KIND} model: {error}") from None
        if data.get("fit") is not None:
            if not isinstance(data["fit"], dict):
                raise ModelError("stored fit report must be a mapping")
            model.fit_ = data["fit"]
        return model


def _times(loads: ServerLoads, bandwidth: float, overhead_s: float, piece_s: float,
           queue: LustreQueueModel | None, client_bandwidth: float | None = None,
           object_s: float = 0.0) -> np.ndarray:
    work = (loads.bytes / bandwidth + loads.pieces * piece_s + loads.objects * object_s).max(axis=1)
    if client_bandwidth is not None:
        work = np.maximum(work, loads.client_bytes / client_bandwidth)
    wait = 0.0 if queue is None else queue.expected_max_wait(np.maximum(loads.servers_used, 1))
    return overhead_s + wait + work


def queue_from(rho: float, wait_scale_s: float, bandwidth: float) -> LustreQueueModel:
    """Paper 004's queue with utilisation rho and 1/a = ``wait_scale_s`` seconds (a = gamma - lambda)."""
    service = 1.0 / (wait_scale_s * (1.0 - rho))
    return LustreQueueModel(rho * service, service, bandwidth)



