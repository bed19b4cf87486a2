"""iotune's PMPI library: an application's own MPI-IO time, bytes and files, and hints applied at open.

``iotune_pmpi.c`` is paper 001's tuning and monitoring modules built on the MPI
profiling interface (Sec. IV-A, Fig. 2); :mod:`.build` compiles it once per
``mpicc`` into a per-user cache, :mod:`.result` reads what it wrote at
``MPI_Finalize``.
"""

from iotune.apply.pmpi.build import PmpiUnavailable, find_mpicc, library
from iotune.apply.pmpi.result import PmpiResult

HINTS_VARIABLE = "IOTUNE_PMPI_HINTS"
OUT_VARIABLE = "IOTUNE_PMPI_OUT"

__all__ = ["HINTS_VARIABLE", "OUT_VARIABLE", "PmpiResult", "PmpiUnavailable", "find_mpicc", "library"]
