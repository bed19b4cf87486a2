"""What one layer's Darshan records say: shared files, I/O processes and the request size.

The rules (each is also said in the profile's notes):

- a file is shared when more than one rank accessed it: Darshan either reduced
  its records to one record of rank -1 (every rank opened it) or, with shared
  reduction off, kept one record per rank under the same record id;
- I/O processes are the ranks that moved bytes.  A rank -1 record hides which
  ranks those were: when its fastest rank (by I/O time) moved bytes, every rank
  is taken to have; when it moved none, the count is the participation ratio
  ``T**2 / sum(x_i**2)`` of the per-rank bytes x_i (T their total), from
  Darshan's per-rank byte variance, exact when the ranks that moved bytes moved
  equal amounts;
- the request size is the most frequent exact access size (``*_ACCESS1..4``),
  else the busiest bin of the request-size histogram, else (STDIO keeps
  neither) the mean bytes per read or write call.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

from iotune.profile.darshan_layers import moved

# Request-size histogram bins (bytes): name suffix -> (low, high).
BINS = {"0_100": (0, 100), "100_1K": (100, 1024), "1K_10K": (1024, 10240), "10K_100K": (10240, 102400),
        "100K_1M": (102400, 1 << 20), "1M_4M": (1 << 20, 4 << 20), "4M_10M": (4 << 20, 10 << 20),
        "10M_100M": (10 << 20, 100 << 20), "100M_1G": (100 << 20, 1 << 30), "1G_PLUS": (1 << 30, 1 << 40)}


def shared_bytes(records: list[dict], prefix: str) -> tuple[int, int]:
    """Bytes in files more than one rank accessed, and the number of such files."""
    ranks: dict[int, set[int]] = defaultdict(set)
    volume: Counter = Counter()
    for record in records:
        ranks[record["id"]].add(record["rank"])
        volume[record["id"]] += moved(record, prefix)
    shared = [i for i, seen in ranks.items() if -1 in seen or len(seen) > 1]
    return sum(volume[i] for i in shared), sum(1 for i in shared if volume[i])


def ranks_in_reduced(record: dict, prefix: str, nprocs: int) -> tuple[int, bool]:
    """How many ranks moved the bytes of one rank -1 record, and whether that number is an estimate."""
    if record.get(f"{prefix}_FASTEST_RANK_BYTES", 0) > 0 or nprocs <= 1:
        return nprocs, False
    bytes_total = moved(record, prefix)
    variance = record.get(f"{prefix}_F_VARIANCE_RANK_BYTES")
    if variance is not None:
        squares = nprocs * variance + bytes_total ** 2 / nprocs  # sum of x_i**2 = n * (variance + mean**2)
        count = round(bytes_total ** 2 / squares) if squares > 0 else nprocs
    else:
        busiest = max(record.get(f"{prefix}_SLOWEST_RANK_BYTES", 0), record.get(f"{prefix}_FASTEST_RANK_BYTES", 0))
        count = math.ceil(bytes_total / busiest) if busiest else nprocs
    return max(1, min(nprocs, count)), True


def io_processes(records: list[dict], prefix: str, nprocs: int) -> tuple[int, bool]:
    """Ranks that moved bytes (at least 1, at most ``nprocs``), and whether the count is partly estimated."""
    ranks = {r["rank"] for r in records if r["rank"] >= 0 and moved(r, prefix)}
    count, estimated = len(ranks), False
    for record in records:
        if record["rank"] < 0 and moved(record, prefix):
            in_record, guessed = ranks_in_reduced(record, prefix, nprocs)
            count, estimated = max(count, in_record), estimated or guessed
    return max(1, min(nprocs, count)), estimated


def request_size(records: list[dict], prefix: str) -> tuple[int, str, bool]:
    """The dominant request size in bytes (0 if none can be read), how it was found, and whether it is only a mean.

    The mean bytes per call is the last resort (STDIO records no sizes at all);
    the benchmark then runs requests of a size the application may never have used.
    """
    counts: Counter = Counter()
    for record in records:
        for i in range(1, 5):
            size, count = record.get(f"{prefix}_ACCESS{i}_ACCESS", 0), record.get(f"{prefix}_ACCESS{i}_COUNT", 0)
            if size > 0 and count > 0:
                counts[size] += count
    if counts:
        return counts.most_common(1)[0][0], "", False
    calls = sum(r.get(f"{prefix}_READS", 0) + r.get(f"{prefix}_WRITES", 0) for r in records)
    mean = sum(moved(r, prefix) for r in records) // calls if calls else 0
    middle = "_" if prefix in ("POSIX", "DFS", "DAOS") else "_AGG_"
    ops: Counter[str] = Counter()
    for record in records:
        for suffix in BINS:
            ops[suffix] += sum(record.get(f"{prefix}_SIZE_{kind}{middle}{suffix}", 0) for kind in ("READ", "WRITE"))
    if ops and max(ops.values()) != 0:
        suffix = ops.most_common(1)[0][0]
        low, high = BINS[suffix]
        how = f"estimated from the {prefix} size histogram (bin {suffix})"
        return (mean if low <= mean <= high else low), how, False
    if mean:
        return mean, f"{prefix} records no request sizes: the mean bytes per read or write call", True
    return 0, "", False


def io_seconds(rows: list[dict], prefix: str) -> float | None:
    """Seconds the slowest process spent in I/O at this layer, as Darshan timed it; None when not recorded.

    A rank's time is the sum of its records' read, write and metadata times; a
    file shared by all ranks (a rank -1 record) adds the time of its slowest rank
    to every rank, so the result bounds the job's I/O time from above.
    """
    per_rank: dict[int, float] = {}
    shared, seen = 0.0, False
    for row in rows:
        own = sum(row.get(f"{prefix}_F_{kind}_TIME", 0.0) for kind in ("READ", "WRITE", "META"))
        seen = seen or own > 0
        if row["rank"] < 0:
            shared += row.get(f"{prefix}_F_SLOWEST_RANK_TIME", own)
        else:
            per_rank[row["rank"]] = per_rank.get(row["rank"], 0.0) + own
    if not seen:
        return None
    return shared + max(per_rank.values(), default=0.0)
