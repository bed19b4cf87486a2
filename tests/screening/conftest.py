"""Spaces, a synthetic runner and spec files for the screening tests."""

import textwrap

import pytest

from iotune.records import Measurement, PhaseResult

SPEC = textwrap.dedent("""\
    name: screen
    parameters:
      - {name: transfer_size, type: size, levels: [64KiB, 128KiB, 256KiB], role: workload, layer: application}
      - {name: romio_cb_write, type: categorical, levels: [disable, automatic, enable], role: system,
         layer: mpiio}
      - {name: cb_buffer_size, type: size, levels: [1MiB, 4MiB], role: system, layer: mpiio}
      - {name: romio_no_indep_rw, type: categorical, levels: ["false", "true"], role: system, layer: mpiio}
    benchmark: {api: MPIIO, processes: 2, block_size: 256KiB, collective: true, operation: write, fsync: false}
    campaign: {repeats: 1}
""")


class SyntheticRunner:
    """Pretends to run the benchmark: time = 1 s + 2 s for the largest transfer + 0.5 s for cb enabled."""

    name = "builtin"

    def __init__(self, fail=()):
        self.calls = []
        self.fail = set(fail)

    def run(self, spec, scratch):
        self.calls.append(spec)
        if len(self.calls) in self.fail:
            return Measurement.failed("synthetic failure")
        seconds = 1.0 + 2.0 * (spec.transfer_size == 256 * 1024) + 0.5 * (spec.hints["romio_cb_write"] == "enable")
        phase = PhaseResult("write", spec.block_size * spec.processes, seconds, 0.0, seconds, 0.0, 1)
        return Measurement(status="COMPLETE", phases=[phase])

    def close(self):
        pass


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "screen.yaml"
    path.write_text(SPEC)
    return path
