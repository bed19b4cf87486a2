"""A tiny campaign spec that runs in a few seconds with real MPI-IO."""

import textwrap

import pytest

SPEC = textwrap.dedent("""\
    name: tiny
    parameters:
      - {name: transfer_size, type: size, levels: [64KiB, 256KiB], role: workload, layer: application}
      - name: romio_cb_write
        type: categorical
        levels: [automatic, disable]
        role: system
        layer: mpiio
      - {name: cb_nodes, type: integer, levels: [1, 2], role: system, layer: mpiio,
         when: "romio_cb_write != 'disable'"}
    benchmark:
      api: MPIIO
      processes: 2
      block_size: 256KiB
      collective: true
      operation: readwrite
      fsync: true
    campaign:
      repeats: 2
""")


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(SPEC)
    return path
