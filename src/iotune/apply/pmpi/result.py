"""What iotune's PMPI library measured in one run, as rank 0 wrote it at ``MPI_Finalize``.

``io_seconds`` is the slowest rank's time inside MPI-IO calls (seconds;
``MPI_Allreduce`` MAX, paper 001 Sec. IV-A), ``bytes_read`` and
``bytes_written`` the bytes the ranks' reads and writes asked for (summed),
``files`` the distinct files opened (each counted by rank 0 of the
communicator that opened it), ``opens`` the ``MPI_File_open`` calls of every
rank, ``seconds_in_mpi`` rank 0's time from ``MPI_Init`` to ``MPI_Finalize``.
``asked`` holds the hints the library set at every open; ``file_records`` the
hints in effect (``MPI_File_get_info``) of the first files rank 0 opened.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

from iotune.bounded import InputError, read_bounded
from iotune.errors import IotuneError

LIMIT = 8 << 20  # bytes: 64 file records of at most a few KiB each
FIGURES = ("io_seconds", "io_seconds_fastest_rank", "bytes_read", "bytes_written", "files", "opens",
           "seconds_in_mpi")


class PmpiResultError(IotuneError, ValueError):
    """The PMPI library's result is missing or not one it writes."""


@dataclass(frozen=True)
class PmpiResult:
    ranks: int
    io_seconds: float
    io_seconds_fastest_rank: float
    bytes_read: int
    bytes_written: int
    files: int
    opens: int
    seconds_in_mpi: float
    asked: dict[str, str] = field(default_factory=dict)
    file_records: list[dict] = field(default_factory=list)
    files_not_recorded: int = 0

    @property
    def bytes(self) -> int:
        return self.bytes_read + self.bytes_written

    @property
    def in_effect(self) -> dict[str, str]:
        """The hints in effect on the first file opened (the run's, as a benchmark trial records them)."""
        return dict(self.file_records[0]["in_effect"]) if self.file_records else {}

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def read(cls, path: Path) -> PmpiResult:
        """The result in ``path``; PmpiResultError when it is absent, malformed or holds an impossible figure."""
        if not Path(path).is_file():
            raise PmpiResultError("iotune's PMPI library left no result: the application did not reach MPI_Finalize "
                                  "(or is not an MPI program; --wall-time tunes its wall time)")
        try:
            data = json.loads(read_bounded(path, LIMIT, "PMPI result"))
        except (InputError, ValueError) as exc:
            raise PmpiResultError(f"iotune's PMPI result {path} is not readable: {exc}") from None
        if not isinstance(data, dict) or data.get("version") != 1:
            raise PmpiResultError(f"iotune's PMPI result {path} is not one this iotune writes")
        if data.get("hints_error"):
            raise PmpiResultError(f"iotune's PMPI library could not apply the hints: {data['hints_error']}")
        figures = {}
        for name in ("ranks", *FIGURES):
            value = data.get(name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise PmpiResultError(f"iotune's PMPI result {path}: {name} is {value!r}, not a figure")
            figures[name] = value
        records = [r for r in data.get("file_records") or [] if isinstance(r, dict)
                   and isinstance(r.get("name"), str) and isinstance(r.get("in_effect"), dict)]
        return cls(ranks=int(figures["ranks"]), io_seconds=float(figures["io_seconds"]),
                   io_seconds_fastest_rank=float(figures["io_seconds_fastest_rank"]),
                   bytes_read=int(figures["bytes_read"]), bytes_written=int(figures["bytes_written"]),
                   files=int(figures["files"]), opens=int(figures["opens"]),
                   seconds_in_mpi=float(figures["seconds_in_mpi"]),
                   asked={str(k): str(v) for k, v in (data.get("asked") or {}).items()},
                   file_records=[{"name": r["name"], "in_effect": {str(k): str(v) for k, v in r["in_effect"].items()}}
                                 for r in records],
                   files_not_recorded=int(data.get("files_not_recorded") or 0))
