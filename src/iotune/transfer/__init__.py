"""The numeric engine of iotune's budgeted tuner: find a new workload's best configuration in a few runs,
using other workloads' measurements as prior knowledge (paper 000's shared database, taken further).

``TransferTuner`` (``engine``) suggests runs and declares a pick over a discrete candidate set; ``Prior``
(``prior``) holds other workloads' runs; ``load_table`` (``table``) reads a measurement table described by
a ``TableSpec`` for replays.
"""

from iotune.transfer.engine import TransferTuner
from iotune.transfer.errors import TransferError
from iotune.transfer.prior import Prior
from iotune.transfer.table import Feature, MeasuredTable, TableSpec, load_table

__all__ = ["Feature", "MeasuredTable", "Prior", "TableSpec", "TransferError", "TransferTuner", "load_table"]
