"""Layout parameters in a space reach the benchmark; bad ones are refused before a campaign; a file system
without layouts fails the trial in one line."""

from __future__ import annotations

import textwrap

import pytest

from iotune.errors import SpaceError
from iotune.records import BenchmarkSpec
from iotune.space import Space
from iotune.spec import CampaignSpec
from iotune.spec.mapping import benchmark_spec, check_runnable, layout_of

SPACE = textwrap.dedent("""\
    name: s
    parameters:
      - {name: stripe_count, type: integer, levels: [1, 3], role: system, layer: filesystem}
      - {name: stripe_unit, type: size, levels: [64KiB, 1MiB], role: system, layer: filesystem,
         when: "stripe_count > 1"}
      - {name: romio_cb_write, type: categorical, levels: [enable, disable], role: system, layer: mpiio}
""")


def test_layout_parameters_become_the_benchmark_layout_not_hints():
    space = Space.from_text(SPACE)
    check_runnable(space)
    spec = benchmark_spec(space, space.configuration({"stripe_count": 3, "stripe_unit": 1 << 20}),
                          {"layout": {"object_size": "33554432"}})
    assert spec.layout == {"object_size": "33554432", "stripe_count": "3", "stripe_unit": "1048576"}
    assert spec.hints == {"romio_cb_write": "enable"}
    single = space.configuration({"stripe_count": 1})
    assert benchmark_spec(space, single).layout == {"stripe_count": "1"} == layout_of(space, single)


def test_a_spec_without_layout_keeps_its_old_form():
    assert "layout" not in BenchmarkSpec().to_dict()
    spec = BenchmarkSpec(layout={"stripe_count": "2"})
    assert BenchmarkSpec.from_dict(spec.to_dict()) == spec


def test_a_bad_layout_level_is_refused_before_the_campaign():
    space = Space.from_text(SPACE.replace("levels: [1, 3]", "levels: [0, 3]"))
    with pytest.raises(SpaceError, match="parameter 'stripe_count': layout stripe_count must be a positive integer"):
        check_runnable(space)


def test_benchmark_layout_in_a_spec_is_checked():
    with pytest.raises(SpaceError, match="layout"):
        CampaignSpec.from_text(SPACE + "benchmark: {layout: {stripe_unit: 1M}}\n")
    spec = CampaignSpec.from_text(SPACE + "benchmark: {layout: {object_size: 33554432}}\n")
    assert spec.benchmark["layout"] == {"object_size": "33554432"}


@pytest.mark.requires_mpi
def test_a_file_system_without_layouts_fails_the_trial_in_one_line(tmp_path):
    from iotune.bench.runner import BuiltinRunner

    with BuiltinRunner(timeout=120) as runner:
        measurement = runner.run(BenchmarkSpec(processes=1, layout={"stripe_count": "2"}), tmp_path)
        assert runner.world is None, "refused before any MPI world was started"
    assert measurement.status == "FAILED"
    assert "which has no file layouts" in measurement.error and "\n" not in measurement.error
    assert list(tmp_path.iterdir()) == []
