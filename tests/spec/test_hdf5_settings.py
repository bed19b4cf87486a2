"""HDF5 settings (layer hdf5) reach the benchmark as settings, not hints; bad ones are refused before a campaign;
what was read back is compared with what was asked, as hints are."""

from __future__ import annotations

import textwrap

import pytest

from iotune.errors import SpaceError
from iotune.recommend.decision import in_effect
from iotune.records import BenchmarkSpec
from iotune.spec import CampaignSpec
from iotune.spec.mapping import benchmark_spec, check_runnable

SPACE = textwrap.dedent("""\
    name: h
    parameters:
      - {name: datasets, type: integer, levels: [1, 4], role: system, layer: hdf5}
      - {name: chunked, type: boolean, role: system, layer: hdf5}
      - {name: chunk_size, type: size, levels: [64KiB, 1MiB], role: system, layer: hdf5, when: "chunked"}
      - {name: alignment, type: size, levels: [1, 1MiB], role: system, layer: hdf5}
      - {name: fs_strategy, type: categorical, levels: [fsm_aggr, page], role: system, layer: hdf5}
      - {name: cb_nodes, type: integer, levels: [1, 2], role: system, layer: mpiio}
    benchmark: {api: HDF5, block_size: 4MiB, transfer_size: 64KiB}
""")


def test_hdf5_parameters_become_the_benchmarks_hdf5_settings_not_hints():
    spec_file = CampaignSpec.from_text(SPACE)
    space = spec_file.space
    check_runnable(space)
    config = space.configuration({"datasets": 4, "chunked": True, "chunk_size": 1 << 20, "alignment": 1 << 20,
                                  "fs_strategy": "page", "cb_nodes": 2})
    spec = benchmark_spec(space, config, spec_file.benchmark)
    assert spec.api == "HDF5"
    assert spec.hdf5 == {"datasets": "4", "chunked": "true", "chunk_size": "1048576", "alignment": "1048576",
                         "fs_strategy": "page"}
    assert spec.hints == {"cb_nodes": "2"}


def test_a_spec_without_hdf5_settings_keeps_its_old_form():
    assert "hdf5" not in BenchmarkSpec().to_dict()
    spec = BenchmarkSpec(api="HDF5", hdf5={"datasets": "2"})
    assert BenchmarkSpec.from_dict(spec.to_dict()) == spec


@pytest.mark.parametrize(("change", "message"), [
    (("levels: [fsm_aggr, page]", "levels: [fsm_aggr, paged]"), "fs_strategy: 'paged' is not one of"),
    (("levels: [1, 4]", "levels: [0, 4]"), "datasets: '0' must be an integer from 1"),
    (("name: alignment,", "name: alignement,"), "has no effect on the built-in benchmark"),
])
def test_a_bad_hdf5_parameter_is_refused_before_the_campaign(change, message):
    with pytest.raises(SpaceError, match=message):
        check_runnable(CampaignSpec.from_text(SPACE.replace(*change)).space)


def test_impossible_shapes_and_apis_are_refused_in_one_line():
    spec_file = CampaignSpec.from_text(SPACE)
    space = spec_file.space
    odd = space.configuration({"datasets": 4, "cb_nodes": 1})
    with pytest.raises(SpaceError, match="whole number of transfers"):
        benchmark_spec(space, odd, {**spec_file.benchmark, "block_size": 128 * 1024})
    with pytest.raises(SpaceError, match="need api HDF5"):
        benchmark_spec(space, odd, {**spec_file.benchmark, "api": "MPIIO"})
    chunky = space.configuration({"datasets": 4, "chunked": True, "chunk_size": 1 << 20, "cb_nodes": 1})
    with pytest.raises(SpaceError, match="chunk_size 1MiB is larger than a dataset"):
        benchmark_spec(space, chunky, {**spec_file.benchmark, "block_size": 256 * 1024, "processes": 2})
    with pytest.raises(SpaceError, match="POSIX driver"):
        benchmark_spec(space, odd, {**spec_file.benchmark, "file_per_process": True})


def test_benchmark_hdf5_map_in_a_spec_is_checked():
    with pytest.raises(SpaceError, match="fs_page_size applies only with fs_strategy: page"):
        CampaignSpec.from_text(SPACE.replace("64KiB}", "64KiB, hdf5: {fs_page_size: 8KiB}}"))
    spec = CampaignSpec.from_text(SPACE.replace("transfer_size: 64KiB}", "transfer_size: 64KiB, "
                                                "hdf5: {meta_block_size: 8KiB, coll_metadata: yes}}"))
    assert spec.benchmark["hdf5"] == {"meta_block_size": "8192", "coll_metadata": "true"}


def test_an_hdf5_setting_read_back_otherwise_ran_as_that():
    space = CampaignSpec.from_text(SPACE).space
    config = dict(space.configuration({"datasets": 4, "chunked": True, "chunk_size": 1 << 20, "alignment": 1 << 20,
                                       "fs_strategy": "page", "cb_nodes": 2}))
    read_back = {"hdf5.datasets": "4", "hdf5.chunked": "true", "hdf5.chunk_size": "1048576",
                 "hdf5.alignment": "4096", "hdf5.fs_strategy": "page", "cb_nodes": "2"}
    changed, effective = in_effect(space, config, read_back)
    assert changed == {"hdf5.alignment": ("1048576", "4096")}
    assert str(effective["alignment"]) == "4096"  # not a level: kept as read
