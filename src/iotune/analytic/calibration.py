"""Calibration of the elastic-cache model measured on this machine (paper 002, Sec. III-C/D, IV-E).

The paper measures B_M(x), the sustained throughput (MB/s) of writing a dataset
of x GB with ``dd`` in 1 MB chunks, and D_M(x), how long (s) the caching
device of size M stays attached for it, on a 33 MB/s backing disk and a
128 MB/s caching disk (Sec. IV-E, Fig. 5).  ``measure_calibration`` repeats
this scaled down from GB to MiB on two throttled loop-device disks of the
storage testbed (:mod:`iotune.testbed`): a *backing* disk at ``slow_mbps`` and,
rebuilt for each M, a *cache* disk at ``fast_mbps`` whose ext4 file system is M
MiB.  There is no block-level cache here; each sample emulates the paper's
write-then-flush cycle with ``dd`` (O_DIRECT, 1 MiB blocks, each ``dd`` in its
disk's blkio cgroup):

1. write: the first ``cached`` MiB of the dataset go to the cache disk, where
   ``cached`` = min(x, free MiB of the cache file system);
2. spill: the rest (x > capacity only) goes straight to the backing disk, as
   the paper's cache forced to evict;
3. flush: the cached MiB are copied from the cache disk to the backing disk,
   a reader ``dd`` in the cache disk's cgroup piped into a writer ``dd`` in
   the backing disk's cgroup.

B_M(x) = x / (write + spill) and D_M(x) = write + spill + flush: the cache is
attached from the first write until its data is flushed.  Unlike the paper,
nothing overlaps (the paper flushes in the background while the application
writes), there is no hypervisor attach delay, and the cache's M matters only
when x does not fit: for x below the capacity every M column holds the same
measurement, up to noise.  Throughputs are MB/s of 10**6 bytes, as the
testbed's limits; sizes are MiB when measured and GB = MiB / 1024 in the tables
(the binary reading of :mod:`iotune.analytic.cache_model`).
"""

from __future__ import annotations

import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path

from iotune.analytic.cache_model import CalibrationTable
from iotune.analytic.errors import ModelError
from iotune.units import MIB

FALLBACK = "iotune model cache falls back to its --calibration file or the built-in illustrative table"
_DD_STATS = re.compile(r"^(\d+) bytes .* copied, ([0-9.eE+-]+) s", re.MULTILINE)


@dataclass(frozen=True)
class Sample:
    """One write-spill-flush cycle of ``dataset_mib`` MiB with a cache of ``cache_mib`` MiB; times in seconds."""

    dataset_mib: int
    cache_mib: int
    cached_mib: int
    write_s: float
    spill_s: float
    flush_s: float

    @property
    def throughput_mbps(self) -> float:
        """B_M(x) in MB/s (10**6 B/s): the dataset over the time the application waits for it."""
        return self.dataset_mib * MIB / 1e6 / (self.write_s + self.spill_s)

    @property
    def attach_s(self) -> float:
        """D_M(x) in s: write + spill + flush, the time the cache disk holds data."""
        return self.write_s + self.spill_s + self.flush_s


@dataclass
class Calibration:
    """Raw samples of a calibration run and the tables ``iotune model cache --calibration`` reads.

    ``samples`` holds every repeat of every (x, M); ``slow_samples`` maps x (MiB)
    to the seconds each repeat took writing x to the backing disk alone (the
    static-slow B(x) of Sec. IV-E).
    """

    dataset_mib: list[int]
    cache_mib: list[int]
    slow_mbps: float
    fast_mbps: float
    samples: list[Sample] = field(default_factory=list)
    slow_samples: dict[int, list[float]] = field(default_factory=dict)
    host: str = ""

    def _grid(self, quantity: str) -> list[list[float]]:
        grid = []
        for x in self.dataset_mib:
            row = []
            for m in self.cache_mib:
                values = [getattr(s, quantity) for s in self.samples if (s.dataset_mib, s.cache_mib) == (x, m)]
                if not values:
                    raise ModelError(f"calibration has no sample for dataset {x} MiB, cache {m} MiB")
                row.append(statistics.fmean(values))
            grid.append(row)
        return grid

    @property
    def dataset_gb(self) -> list[float]:
        return [x / 1024 for x in self.dataset_mib]

    @property
    def cache_gb(self) -> list[float]:
        return [m / 1024 for m in self.cache_mib]

    def throughput(self) -> CalibrationTable:
        """B_M(x) in MB/s, mean over repeats, on the GB grid."""
        return CalibrationTable(self.dataset_gb, self.cache_gb, self._grid("throughput_mbps"), quantity="B")

    def attach(self) -> CalibrationTable:
        """D_M(x) in seconds, mean over repeats, on the GB grid."""
        return CalibrationTable(self.dataset_gb, self.cache_gb, self._grid("attach_s"), quantity="D")

    def fast_mbps_measured(self) -> dict[int, float]:
        """Static-fast B(x) in MB/s: mean over the samples whose whole dataset went to the cache disk."""
        found = {}
        for x in self.dataset_mib:
            rates = [s.throughput_mbps for s in self.samples if s.dataset_mib == x and s.cached_mib == x]
            if rates:
                found[x] = statistics.fmean(rates)
        return found

    def slow_mbps_measured(self) -> dict[int, float]:
        """Static-slow B(x) in MB/s: mean over the repeats of writing x to the backing disk."""
        return {x: statistics.fmean(x * MIB / 1e6 / t for t in times) for x, times in self.slow_samples.items()}

    def to_dict(self) -> dict:
        """The ``--calibration`` keys (dataset_gb, cache_gb, throughput_mbps, attach_s) plus the raw samples."""
        return {
            "dataset_gb": self.dataset_gb,
            "cache_gb": self.cache_gb,
            "throughput_mbps": [[round(v, 3) for v in row] for row in self._grid("throughput_mbps")],
            "attach_s": [[round(v, 4) for v in row] for row in self._grid("attach_s")],
            "measured": {
                "source": "iotune.analytic.calibration.measure_calibration (paper 002, Sec. III-C/D)",
                "units": "sizes MiB, times s, bandwidths MB/s (10**6 B/s)",
                "host": self.host,
                "dataset_mib": list(self.dataset_mib),
                "cache_mib": list(self.cache_mib),
                "slow_mbps": self.slow_mbps,
                "fast_mbps": self.fast_mbps,
                "samples": [asdict(s) for s in self.samples],
                "slow_samples": {int(x): list(t) for x, t in self.slow_samples.items()},
            },
        }

    def to_yaml(self) -> str:
        import yaml

        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    @classmethod
    def from_yaml(cls, text: str) -> Calibration:
        """A Calibration from ``to_yaml`` output (it needs the ``measured`` section with the raw samples)."""
        import yaml

        try:
            data = yaml.safe_load(text)
            raw = data["measured"]
            return cls([int(x) for x in raw["dataset_mib"]], [int(m) for m in raw["cache_mib"]],
                       float(raw["slow_mbps"]), float(raw["fast_mbps"]),
                       [Sample(**s) for s in raw["samples"]],
                       {int(x): [float(t) for t in ts] for x, ts in raw["slow_samples"].items()},
                       str(raw.get("host", "")))
        except (yaml.YAMLError, KeyError, TypeError, ValueError) as error:
            raise ModelError(f"not a measured calibration: {type(error).__name__}: {error}") from None


def _check_sizes(name: str, sizes, minimum: int) -> list[int]:
    values = list(sizes)
    if len(values) < 2 or any(not isinstance(v, int) or v < minimum for v in values) or sorted(set(values)) != values:
        raise ModelError(f"{name} must be >= 2 strictly increasing whole MiB >= {minimum}, got {sizes!r}")
    return values


def _dd(bed, argv: list[str], stdin=None, before: str = "") -> float:
    """Run ``dd`` in ``bed``'s cgroup (after the shell command ``before``); the seconds dd reports for its copy."""
    script = f"{before} && exec dd \"$@\"" if before else 'exec dd "$@"'
    done = bed.run_in_cgroup(["/bin/sh", "-c", script, "dd", *argv], stdin=stdin, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, env={**os.environ, "LC_ALL": "C"})
    _, err = done.communicate(timeout=600)
    text = err.decode(errors="replace")
    match = _DD_STATS.search(text)
    if done.returncode != 0 or match is None:
        raise ModelError(f"dd {' '.join(argv)} failed: {text.strip().splitlines()[-1:] or done.returncode}")
    return float(match.group(2))


def _write(bed, path: Path, mib: int, mbps: float) -> float:
    """Seconds to write ``mib`` MiB to ``path`` with O_DIRECT, after a warm-up write to the same file."""
    # blk-throttle lets a new slice (100 ms on a rotational loop device) through at once, so a cold
    # 16 MiB write measured 160-220 MB/s at a 128 MB/s limit; warming up first leaves the sustained rate.
    warm = min(mib, math.ceil(mbps * 1e6 * 0.15 / MIB))
    before = f"dd if=/dev/zero of={shlex.quote(str(path))} bs=1M count={warm} oflag=direct status=none"
    # O_DIRECT plus fsync: buffered writeback is charged to the root cgroup and escapes the throttle.
    return _dd(bed, ["if=/dev/zero", f"of={path}", "bs=1M", f"count={mib}", "oflag=direct", "conv=notrunc,fsync"],
               before=before)


def _flush(cache_bed, source: Path, backing_bed, target: Path, mib: int) -> float:
    reader = cache_bed.run_in_cgroup(["dd", f"if={source}", "bs=1M", f"count={mib}", "iflag=direct", "status=none"],
                                     stdout=subprocess.PIPE)
    try:
        # iflag=fullblock: a pipe returns short reads, which O_DIRECT cannot write.
        return _dd(backing_bed, ["of=" + str(target), "bs=1M", "iflag=fullblock", "oflag=direct", "conv=fsync"],
                   stdin=reader.stdout)
    finally:
        reader.stdout.close()
        reader.wait(timeout=60)


def _capacity_mib(mountpoint: Path) -> int:
    """Whole MiB a file can take on the file system, keeping 1 MiB for ext4's extent metadata."""
    return max(0, shutil.disk_usage(mountpoint).free // MIB - 1)


def measure_calibration(dataset_sizes_mib=(16, 32, 64), cache_sizes_mib=(32, 64, 128), slow_mbps=33.0,
                        fast_mbps=128.0, repeats=2, root_dir=None) -> Calibration:
    """Measure B_M(x) and D_M(x) on throttled loop disks (see the module docstring for the method).

    Sizes in MiB (x >= 1, M >= 16, ext4's minimum), bandwidths in MB/s (10**6 B/s).
    Needs root, loop devices and the cgroup v1 blkio controller; elsewhere raises
    TestbedUnsupportedError in one line.  Every testbed built is torn down.
    """
    from iotune.testbed import StorageConfig, Testbed, support_problem
    from iotune.testbed.errors import TestbedUnsupportedError

    problem = support_problem()
    if problem:
        raise TestbedUnsupportedError(f"cannot measure a calibration here: {problem}; {FALLBACK}")
    datasets = _check_sizes("dataset_sizes_mib", dataset_sizes_mib, 1)
    caches = _check_sizes("cache_sizes_mib", cache_sizes_mib, 16)
    if not (isinstance(repeats, int) and repeats >= 1):
        raise ModelError(f"repeats must be a whole number >= 1, got {repeats!r}")
    for name, value in (("slow_mbps", slow_mbps), ("fast_mbps", fast_mbps)):
        if not value > 0:
            raise ModelError(f"{name} must be > 0 MB/s, got {value!r}")
    result = Calibration(datasets, caches, float(slow_mbps), float(fast_mbps), host=os.uname().nodename)
    # Room for one dataset spilled plus its flushed copy, and ext4's overhead.
    backing_size = 2 * datasets[-1] + 32
    with Testbed(root_dir) as backing:
        slow = backing.build(StorageConfig(fs="ext4", write_mbps=slow_mbps, read_mbps=slow_mbps, size_mib=backing_size))
        for x in datasets:
            result.slow_samples[x] = []
            for _ in range(repeats):
                result.slow_samples[x].append(_write(backing, slow.mountpoint / "static", x, slow_mbps))
                (slow.mountpoint / "static").unlink()
        for m in caches:
            with Testbed(root_dir) as cache:
                fast = cache.build(StorageConfig(fs="ext4", write_mbps=fast_mbps, read_mbps=fast_mbps, size_mib=m))
                capacity = _capacity_mib(fast.mountpoint)
                for x in datasets:
                    cached = min(x, capacity)
                    for _ in range(repeats):
                        write_s = _write(cache, fast.mountpoint / "data", cached, fast_mbps) if cached else 0.0
                        spill_s = (_write(backing, slow.mountpoint / "spill", x - cached, slow_mbps)
                                   if x > cached else 0.0)
                        flush_s = (_flush(cache, fast.mountpoint / "data", backing, slow.mountpoint / "flushed",
                                          cached) if cached else 0.0)
                        for path in (fast.mountpoint / "data", slow.mountpoint / "spill", slow.mountpoint / "flushed"):
                            path.unlink(missing_ok=True)
                        result.samples.append(Sample(x, m, cached, write_s, spill_s, flush_s))
    return result
