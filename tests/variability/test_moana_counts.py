"""Paper 003's configuration counts (moana.json "counts") reproduced with an iotune space.

The 15 CPU frequency levels are not given by the paper (spec A1): any 15 levels do for counting.
"""

import numpy as np

from iotune.space import Space

MOANA = """
name: moana
parameters:
  - {name: frequency, type: integer, levels: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], role: system,
     layer: device}
  - {name: threads, type: integer, levels: [1, 2, 4, 8, 16, 32, 64, 128, 256], role: workload, layer: application}
  - {name: file_size, type: size, levels: [64KiB, 256KiB, 1MiB], role: workload, layer: application}
  - {name: record_size, type: size, levels: [32KiB, 128KiB, 512KiB], role: workload, layer: application}
  - {name: host_scheduler, type: categorical, levels: [cfq, deadline, noop], role: system, layer: device}
  - {name: vm_scheduler, type: categorical, levels: [cfq, deadline, noop], role: system, layer: device}
  - {name: operation_mode, type: integer, levels: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], role: workload,
     layer: application}
constraints:
  - "file_size > record_size"
"""


def test_total_configurations_maps_and_points_per_map():
    space = Space.from_text(MOANA)
    assert space.count_valid() == 94_770  # 15 * 9 * 6 * 3 * 3 * 13
    configurations = list(space.enumerate())
    pairs = sorted({(c["file_size"] // 1024, c["record_size"] // 1024) for c in configurations})
    assert pairs == [(64, 32), (256, 32), (256, 128), (1024, 32), (1024, 128), (1024, 512)]
    maps = {(c["host_scheduler"], c["vm_scheduler"], c["operation_mode"]) for c in configurations}
    assert len(maps) == 117
    per_map = np.unique([hash(m) for m in ((c["host_scheduler"], c["vm_scheduler"], c["operation_mode"])
                                            for c in configurations)], return_counts=True)[1]
    assert set(per_map) == {810}
