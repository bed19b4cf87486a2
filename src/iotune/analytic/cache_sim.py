"""Discrete-time simulation of the adaptive block cache of paper 002 (Sec. III-A, III-B, IV-A).

One VM runs a bulk-synchronous trace (compute, then a blocking write burst,
repeated).  Its storage is a backing device of B_b MB/s and, while the
controller wants it, a caching device of B_c MB/s; each device's bandwidth is
shared by its reads and writes.  Per step of ``dt`` seconds the controller
follows Sec. III-A:

* **attach** a caching device when the utilisation u = (write rate the
  application asks for) / B_b, capped at 1, exceeds UT; it becomes usable
  ``attach_delay_s`` later and is charged from the request on;
* **dynamic writeback, phase 1**: writes go to the cache; dirty data is flushed
  only with bandwidth left over on both devices, or when the cache is full of
  dirty data and must evict (a *forced* flush, which throttles the writes);
* **phase 2**, once u has stayed below UT for the inactivity delay ID: flushing
  takes the backing device first and new writes bypass the cache; a new burst
  (u > UT) returns to phase 1;
* **detach** in phase 2 only when no dirty data is left;
* **access-pattern-aware sizing**: the next cache is the size that was used
  (peak occupancy) or, if flushes were forced, the size plus the forced
  amount, rounded up to whole ``granularity_gb``.

The static policies for comparison (Sec. IV-A) use one disk of B_b (static-slow)
or B_c (static-fast) MB/s and N GB for the whole run.  Costs follow Sec. III-B:
B_b N dt + B_c M dt per step, in AGBs, per VM (the paper's C_a is n_vm times
this).  Sizes are MB inside the simulation; 1 GB = 1024 MB (see cache_model).
Only writes are modelled (checkpoint traces); reads would be served by the cache.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from iotune.analytic import cache_checks as check
from iotune.analytic.cache_model import MB_PER_GB
from iotune.analytic.errors import ModelError

DETACHED, ATTACHING, WRITEBACK, FLUSHING = 0, 1, 2, 3
"""Controller states in ``Timeline.state``: no cache, cache requested, phase 1, phase 2 (Sec. III-A)."""
POLICIES = ("static-slow", "static-fast", "adaptive")
# Writes shorter than this (MB) count as done: sums of float pieces rarely hit 0 exactly.
_EPS_MB = 1e-9


@dataclass(frozen=True)
class Trace:
    """A bulk-synchronous I/O trace: segment i computes ``compute_s[i]`` seconds, then writes ``write_mb[i]`` MB.

    A write blocks the application until the storage has accepted every byte.
    """

    compute_s: np.ndarray
    write_mb: np.ndarray

    def __post_init__(self):
        arrays = []
        for name in ("compute_s", "write_mb"):
            try:
                a = np.array(getattr(self, name), dtype=float).reshape(-1)
            except (TypeError, ValueError):
                raise ModelError(f"trace {name} must be numbers, got {getattr(self, name)!r}") from None
            if not np.all(np.isfinite(a)) or np.any(a < 0):
                raise ModelError(f"trace {name} must be finite and >= 0")
            a.setflags(write=False)
            arrays.append(a)
        if arrays[0].size != arrays[1].size or arrays[0].size == 0:
            raise ModelError(
                f"trace needs as many compute phases as writes, at least one; got {arrays[0].size} and {arrays[1].size}"
            )
        object.__setattr__(self, "compute_s", arrays[0])
        object.__setattr__(self, "write_mb", arrays[1])


def checkpoint_trace(compute_s, steps, every, initial_gb, checkpoint_gb, *, mb_per_gb=MB_PER_GB) -> Trace:
    """Dump ``initial_gb`` at start, then ``steps`` equal time steps of ``compute_s`` in total, checkpointing
    ``checkpoint_gb`` after every ``every`` steps (paper 002, Sec. IV-C/D)."""
    total = check.nonnegative("compute_s", compute_s)
    n = check.count("steps", steps)
    k = check.count("every", every)
    si = check.nonnegative("initial_gb", initial_gb) * check.positive("mb_per_gb", mb_per_gb)
    sc = check.nonnegative("checkpoint_gb", checkpoint_gb) * mb_per_gb
    per_step = total / n
    checkpoints = n // k
    compute = [0.0] + [k * per_step] * checkpoints + [(n - checkpoints * k) * per_step]
    writes = [si] + [sc] * checkpoints + [0.0]
    return Trace(np.array(compute), np.array(writes))


def cm1_trace() -> Trace:
    """CM1 per VM (Sec. IV-C, IV-E): 160 steps, checkpoint every 50, 1100 s compute, S_i = 5 GB, S_c = 4 GB."""
    return checkpoint_trace(1100.0, 160, 50, 5.0, 4.0)


def lammps_trace() -> Trace:
    """LAMMPS per VM (Sec. IV-D, IV-E): 100 steps, checkpoint every 30, 1380 s compute, S_i = 4 GB, S_c = 3 GB."""
    return checkpoint_trace(1380.0, 100, 30, 4.0, 3.0)


@dataclass(frozen=True)
class ElasticConfig:
    """Devices and controller settings; defaults are the paper's CM1/LAMMPS set-up (Sec. IV-A, IV-C).

    ``attach_delay_s`` (time from the attach request until the cache serves
    I/O) is not printed in the paper; ``app_mbps`` caps the rate the
    application asks for (None: as fast as the storage accepts).  Caching
    devices come in whole multiples of ``granularity_gb``, the initial one too.
    """

    backing_mbps: float = 33.0
    cache_mbps: float = 128.0
    backing_gb: float = 50.0
    initial_cache_gb: float = 10.0
    utilisation_threshold: float = 0.3
    inactivity_delay_s: float = 30.0
    attach_delay_s: float = 5.0
    granularity_gb: float = 1.0
    app_mbps: float | None = None

    def __post_init__(self):
        check.positive("backing_mbps", self.backing_mbps)
        check.positive("cache_mbps", self.cache_mbps)
        check.nonnegative("backing_gb", self.backing_gb)
        check.positive("initial_cache_gb", self.initial_cache_gb)
        check.fraction("utilisation_threshold (UT)", self.utilisation_threshold)
        check.nonnegative("inactivity_delay_s (ID)", self.inactivity_delay_s)
        check.nonnegative("attach_delay_s", self.attach_delay_s)
        check.positive("granularity_gb", self.granularity_gb)
        if self.app_mbps is not None:
            check.positive("app_mbps", self.app_mbps)


@dataclass(frozen=True)
class Timeline:
    """Per-step activity; entry i covers the step ending at ``t_s[i]``.  Rates are step averages in MB/s,
    amounts are at the end of the step in MB, ``cache_gb`` is the size charged during the step."""

    t_s: np.ndarray
    state: np.ndarray
    app_mbps: np.ndarray
    backing_write_mbps: np.ndarray
    cache_write_mbps: np.ndarray
    cache_read_mbps: np.ndarray
    cache_gb: np.ndarray
    dirty_mb: np.ndarray
    written_mb: np.ndarray
    backing_mb: np.ndarray
    cost_agbs: np.ndarray

    @property
    def io_mbps(self) -> np.ndarray:
        """Total device activity (reads and writes on both devices), as in the paper's Fig. 3(b)/4(b)."""
        return self.backing_write_mbps + self.cache_write_mbps + self.cache_read_mbps


@dataclass(frozen=True)
class SimResult:
    """Outcome of one policy on one trace, for one VM."""

    policy: str
    completion_s: float
    """When the application's last write was accepted (s)."""
    end_s: float
    """When the run ended: completion, or later if the cache was still flushing (s); costs run to here."""
    cost_agbs: float
    cache_sizes_gb: tuple[float, ...]
    """Size of each caching device attached, in order (GB)."""
    timeline: Timeline


def simulate(trace: Trace, config: ElasticConfig | None = None, policy: str = "adaptive", *, dt=0.1) -> SimResult:
    """Run ``policy`` (one of POLICIES) on ``trace`` with time step ``dt`` seconds.

    Compute phases last whole steps (rounded to the nearest, so ``dt`` should be
    small against them); the controller decides at the start of each step.
    """
    cfg = ElasticConfig() if config is None else config
    if not isinstance(trace, Trace):
        raise ModelError(f"trace must be a Trace, got {type(trace).__name__}")
    if not isinstance(cfg, ElasticConfig):
        raise ModelError(f"config must be an ElasticConfig, got {type(cfg).__name__}")
    if policy not in POLICIES:
        raise ModelError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    dt = check.positive("dt", dt)
    return _Run(trace, cfg, policy, dt).run()


def compare_policies(trace: Trace, config: ElasticConfig | None = None, *, dt=0.1) -> dict[str, SimResult]:
    """``simulate`` under static-slow, static-fast and adaptive (paper 002, Sec. IV-C/D)."""
    return {p: simulate(trace, config, p, dt=dt) for p in POLICIES}


class _Run:
    """State of one simulation; ``run`` advances it step by step."""

    def __init__(self, trace, cfg, policy, dt):
        self.cfg, self.policy, self.dt = cfg, policy, dt
        self.compute_steps = np.rint(trace.compute_s / dt).astype(np.int64)
        self.writes = trace.write_mb
        self.device_mbps = cfg.cache_mbps if policy == "static-fast" else cfg.backing_mbps
        self.gran_mb = cfg.granularity_gb * MB_PER_GB
        self.next_size_mb = math.ceil(cfg.initial_cache_gb * MB_PER_GB / self.gran_mb) * self.gran_mb
        self.max_steps = self._step_bound(trace)

    def _step_bound(self, trace) -> int:
        cfg, n = self.cfg, trace.write_mb.size
        total = float(trace.write_mb.sum())
        slowest = min(cfg.backing_mbps, cfg.cache_mbps / 2, cfg.app_mbps or math.inf)
        per_burst = cfg.attach_delay_s + cfg.inactivity_delay_s + 4 * self.dt
        flush = (total + cfg.initial_cache_gb * MB_PER_GB) / min(cfg.backing_mbps, cfg.cache_mbps)
        bound = float(self.compute_steps.sum()) * self.dt + total / slowest + (n + 1) * per_burst + flush
        return int(math.ceil(2 * bound / self.dt)) + 10 * (n + 1)

    def run(self) -> SimResult:
        cfg, dt = self.cfg, self.dt
        seg, c_left, w_left = 0, int(self.compute_steps[0]), float(self.writes[0])
        nseg = self.writes.size
        state = DETACHED
        size_mb = dirty = clean = peak = forced = 0.0
        attach_left = low_s = 0.0
        written = on_backing = cost = 0.0
        done_at = None
        sizes = []
        rows = []
        step = 0
        while True:
            while seg < nseg and c_left == 0 and w_left <= _EPS_MB:
                seg += 1
                if seg < nseg:
                    c_left, w_left = int(self.compute_steps[seg]), float(self.writes[seg])
            if seg == nseg and done_at is None:
                done_at = step * dt
            if done_at is not None and state == DETACHED:
                break
            if step >= self.max_steps:
                raise ModelError(f"simulation did not finish within {self.max_steps} steps of {dt:g} s")

            offered = 0.0
            if seg < nseg and c_left == 0:
                offered = w_left if cfg.app_mbps is None else min(w_left, cfg.app_mbps * dt)
            computing = seg < nseg and c_left > 0

            if self.policy == "adaptive":
                u = min(1.0, offered / (cfg.backing_mbps * dt))
                if state == DETACHED and u > cfg.utilisation_threshold:
                    state, attach_left, size_mb = ATTACHING, cfg.attach_delay_s, self.next_size_mb
                    sizes.append(size_mb / MB_PER_GB)
                if state == ATTACHING and attach_left <= 1e-12:
                    state, dirty, clean, peak, forced, low_s = WRITEBACK, 0.0, 0.0, 0.0, 0.0, 0.0
                if state == FLUSHING and u > cfg.utilisation_threshold:
                    state, low_s = WRITEBACK, 0.0
                elif state == WRITEBACK:
                    low_s = low_s + dt if u < cfg.utilisation_threshold else 0.0
                    if low_s >= cfg.inactivity_delay_s - 1e-9:
                        state = FLUSHING
                if state == FLUSHING and dirty == 0.0:
                    # Sec. III-A sizing: shrink to what was used, grow by what was evicted.
                    want = size_mb + forced if forced > 0 else peak
                    self.next_size_mb = max(1, math.ceil(want / self.gran_mb - 1e-9)) * self.gran_mb
                    state, size_mb = DETACHED, 0.0

            bw_b, bw_c = cfg.backing_mbps * dt, cfg.cache_mbps * dt
            to_backing = to_cache = from_cache = 0.0
            if self.policy != "adaptive":
                to_backing = min(offered, self.device_mbps * dt)
                accepted = to_backing
            elif state in (DETACHED, ATTACHING):
                to_backing = accepted = min(offered, bw_b)
            elif state == WRITEBACK:
                space = size_mb - dirty
                w1 = min(offered, bw_c, space)
                evict = 0.0
                if offered > w1 and w1 >= space:
                    # Cache full of dirty data: each new block waits for one to be flushed (read + write on the cache).
                    evict = min(offered - w1, (bw_c - w1) / 2, bw_b, dirty + w1)
                    forced += evict
                dirty += w1
                clean = min(clean, size_mb - dirty)
                peak = max(peak, dirty + clean)
                spare = max(0.0, min(dirty, bw_c - w1 - 2 * evict, bw_b - evict))
                dirty -= spare
                clean += spare
                accepted, to_cache = w1 + evict, w1 + evict
                from_cache = to_backing = evict + spare
            else:
                flush = min(dirty, bw_b, bw_c)
                dirty = 0.0 if flush == dirty else dirty - flush
                clean += flush
                # Writes now bypass the cache; a real device must also invalidate cached copies of those
                # blocks (the traces here only append, so none overlap).
                direct = min(offered, bw_b - flush)
                accepted, from_cache, to_backing = direct, flush, flush + direct

            w_left = 0.0 if accepted >= w_left - _EPS_MB else w_left - accepted
            written += accepted
            on_backing += to_backing
            if computing:
                c_left -= 1
            if state == ATTACHING:
                attach_left -= dt
            charged_gb = size_mb / MB_PER_GB if state != DETACHED else 0.0
            # Paper 002, Sec. III-B: C(t) = B_b N t + B_c int M(x) dx, in AGBs.
            cost += self.device_mbps * cfg.backing_gb * dt + (cfg.cache_mbps * charged_gb * dt)
            step += 1
            rows.append(
                (step * dt, state, accepted / dt, to_backing / dt, to_cache / dt, from_cache / dt,
                 charged_gb, dirty, written, on_backing, cost)
            )

        columns = list(zip(*rows, strict=True)) if rows else [()] * 11
        timeline = Timeline(*(np.asarray(c, dtype=np.int8 if i == 1 else float) for i, c in enumerate(columns)))
        return SimResult(self.policy, float(done_at), step * dt, cost, tuple(sizes), timeline)
