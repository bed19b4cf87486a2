"""A hint value cannot add hints of its own in the forms an application reads (issue 22, item 7).

Before: a level ``enable:cb_nodes=99:striping_factor=8`` of romio_cb_write became three hints in
MPICH_MPIIO_HINTS for `iotune run -- app`, and a value with a line break a second line of the ROMIO hints file.
"""

import pytest

from iotune.apply.forms import mpich_mpiio_hints, romio_hints_file
from iotune.apply.settings import apply_settings
from iotune.errors import SpaceError
from iotune.spec import CampaignSpec
from iotune.spec.mapping import benchmark_spec

SPEC = """\
name: inject
parameters:
  - {{name: romio_cb_write, type: categorical, levels: [enable, {level}], role: system, layer: mpiio}}
benchmark: {{api: MPIIO}}
"""


@pytest.mark.parametrize("level", ["'enable:cb_nodes=99:striping_factor=8'", "'a;b'", "'a b'", '"x\\ty"'])
def test_the_spec_refuses_a_level_that_would_inject_hints(level):
    spec = CampaignSpec.from_text(SPEC.format(level=level))
    with pytest.raises(SpaceError, match="romio_cb_write"):
        spec.check_runnable()


def test_the_benchmark_refuses_fixed_hints_that_would_inject():
    spec = CampaignSpec.from_text(SPEC.format(level="disable").replace(
        "benchmark: {api: MPIIO}", "benchmark: {api: MPIIO, hints: {cb_nodes: '1:striping_factor=8'}}"))
    with pytest.raises(SpaceError, match="cb_nodes"):
        benchmark_spec(spec.space, spec.space.configuration({"romio_cb_write": "enable"}), spec.benchmark)


@pytest.mark.parametrize("hints", [{"romio_cb_write": "enable:cb_nodes=99"}, {"romio_cb_write": "enable\ncb_nodes 99"},
                                   {"cb nodes": "2"}])
def test_values_from_a_store_are_refused_where_they_are_applied(tmp_path, hints):
    with pytest.raises(SpaceError):
        apply_settings(hints, {}, tmp_path, environ={})
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(SpaceError):
        romio_hints_file(hints)


def test_a_value_that_mpich_cannot_carry_is_left_to_the_romio_file():
    hints = {"cb_config_list": "*:*", "cb_nodes": "2"}
    assert mpich_mpiio_hints(hints) == "*:cb_nodes=2"
    assert romio_hints_file(hints) == "cb_config_list *:*\ncb_nodes 2\n"
