"""The Lustre tuning space of paper 004 (Table IV) and an objective over it built on ``LustreQueueModel``.

Dimensions (paper 004, Table IV, parallel POSIX I/O): stripe count 1-160,
stripe size and transfer size 1-256 MiB in powers of two, and the number of I/O
processes (here powers of two, 1-1024; the paper's bound is 12K).

How the paper's variables map to the model.  ``total_bytes`` D is split evenly
over p I/O processes, each writing its own file of M = D / p bytes striped over
n = stripe count OSTs.  Terms:

* **paper 004, Sec. II-B**: E[max of n OST waits] + M / (n V), with the waits of
  M/M/1 queues (lambda, gamma) and V bytes/s per OST (``LustreQueueModel``).
* **iotune's simplification, seek term**: every piece written to an OST costs
  one seek, ``seek_s`` = 0.004 s (the paper's Table I lists this value but its
  model leaves it out).  A transfer of t bytes is cut at stripe boundaries into
  pieces of min(s, t) bytes.
* **iotune's simplification, concurrency**: one transfer of t bytes touches
  c = min(n, ceil(t / s)) OSTs, so a process keeps only c OSTs busy at a time;
  the streaming term becomes M / (c V).
* **iotune's simplification, contention**: the file system has ``ost_count`` K
  OSTs (default 160, Table IV's largest stripe count).  p processes use
  min(p n, K) distinct OSTs, the job waits for the slowest of them, and when
  p n > K each OST is shared by p n / K streams, which slows each stream by
  that factor.  Arrivals from other users keep the rate lambda.

So, in seconds::

    T(n, s, t, p) = E[max of min(p n, K) waits] + max(1, p n / K) * (M / c) * (1 / V + seek_s / min(s, t))

With p = 1, t >= n s and seek_s = 0 this is exactly the paper's T(M, n).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from iotune.analytic import _validate as check
from iotune.analytic.lustre import LustreQueueModel
from iotune.space import Parameter, Space
from iotune.units import MIB

SEEK_S = 0.004
"""Seek time per request, seconds (paper 004, Table I)."""
DIMENSIONS = ("stripe_count", "stripe_size_mib", "transfer_size_mib", "processes")


def lustre_space(max_stripes: int = 160, max_size_mib: int = 256, max_processes: int = 1024) -> Space:
    """Paper 004's Table IV space: stripe count 1..max_stripes, sizes 1..max_size_mib MiB (powers of two),
    processes 1..max_processes (powers of two); every parameter a system option of the file system layer."""

    def doublings(name: str, high: int) -> Parameter:
        return Parameter(name=name, type="integer", levels=tuple(2**e for e in range(high.bit_length())),
                         role="system", layer="filesystem")

    return Space("lustre-table-iv", [
        Parameter(name="stripe_count", type="integer", levels=tuple(range(1, max_stripes + 1)), role="system",
                  layer="filesystem"),
        doublings("stripe_size_mib", max_size_mib),
        doublings("transfer_size_mib", max_size_mib),
        doublings("processes", max_processes),
    ], description="paper 004, Table IV: Lustre striping and parallel POSIX I/O")


class LustreObjective:
    """Expected seconds to write ``total_bytes`` with a given (stripe count, stripe size, transfer size, processes).

    Callable on a configuration of ``lustre_space()`` (any mapping of the four names); ``times`` is the
    vectorised form.
    ``exact=False`` uses the paper's closed form for the expected maximum wait.
    See the module docstring for which terms are the paper's.
    """

    def __init__(self, model: LustreQueueModel, total_bytes, *, ost_count: int = 160, seek_s: float = SEEK_S,
                 exact: bool = True):
        self.model = model
        self.total_bytes = float(check.sizes(total_bytes, "total_bytes"))
        self.ost_count = check.count("ost_count", ost_count)
        self.seek_s = float(check.sizes(seek_s, "seek_s"))
        self.exact = exact

    def times(self, stripe_count, stripe_size_mib, transfer_size_mib, processes):
        """Seconds for each combination (numpy broadcasting); sizes in MiB."""
        n = check.stripe_counts(stripe_count, "stripe_count")
        s = np.asarray(stripe_size_mib, dtype=float) * MIB
        t = np.asarray(transfer_size_mib, dtype=float) * MIB
        p = check.stripe_counts(processes, "processes")
        streams = p * n
        osts = np.minimum(streams, self.ost_count)
        wait = self.model.expected_max_wait(osts) if self.exact else self.model.expected_max_wait_paper(osts)
        busy = np.minimum(n, np.ceil(t / s))
        per_file = self.total_bytes / p
        share = np.maximum(1.0, streams / self.ost_count)
        return wait + share * per_file / busy * (1.0 / self.model.bandwidth + self.seek_s / np.minimum(s, t))

    def __call__(self, point: Mapping[str, Any]) -> float:
        return float(self.times(*(point[name] for name in DIMENSIONS)))

    def exhaustive(self, space: Space) -> tuple[dict, float, int]:
        """The best point of ``space`` by evaluating every one: (point, seconds, points evaluated)."""
        levels = [np.array(space.parameter(name).levels) for name in DIMENSIONS]
        grids = np.meshgrid(*levels, indexing="ij")
        values = self.times(*grids)
        index = np.unravel_index(int(np.argmin(values)), values.shape)
        point = {name: int(level[i]) for name, level, i in zip(DIMENSIONS, levels, index, strict=True)}
        return point, float(values[index]), int(values.size)
