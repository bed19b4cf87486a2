"""Storage cost of device classes (paper 002 Sec. III-B), added to the instance cost (paper 000 Eq. 2)."""

import numpy as np
import pytest

from iotune.recommend.cost import CostError, CostModel
from iotune.space import Space

PRICING = """\
currency: USD
instance_types:
  small: {price_per_hour: 1.0, cores: 4}
default_instance_type: small
device_classes:
  slow: {write_mbps: 33, read_mbps: 20, size_gb: 50, price_gb_hour: 0.001, price_mbps_hour: 0.01}
  fast: {write_mbps: 128, read_mbps: 128, iops: 5000, size_gb: 50, price_gb_hour: 0.001, price_mbps_hour: 0.01}
"""


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "pricing.yaml"
    path.write_text(PRICING)
    return CostModel.from_yaml(path)


def test_packaged_pricing_has_the_paper_002_classes():
    classes = CostModel.from_yaml().device_classes
    assert (classes["slow"].write_mbps, classes["fast"].write_mbps) == (33, 128)
    assert classes["fast"].price_per_hour() > classes["slow"].price_per_hour() > 0


def test_storage_cost_is_devices_times_size_and_bandwidth_prices_times_hours(model):
    # slow: reserved bandwidth is the larger limit, 33 MB/s; 2 devices for half an hour
    expected = 2 * (50 * 0.001 + 33 * 0.01) * 0.5
    assert model.storage_cost(1800, {"device_class": "slow", "devices": 2}) == pytest.approx(expected)
    assert model.storage_cost(1800, {}) == 0.0


def test_cost_adds_storage_to_the_instance_cost(model):
    configuration = {"device_class": "fast", "processes": 8}
    instances = 3600 / 3600 * 2 * 1.0  # ceil(8 / 4) instances of small
    storage = 1 * (50 * 0.001 + 128 * 0.01)
    assert model.cost(3600, configuration) == pytest.approx(instances + storage)
    assert model.cost(3600, {"processes": 8}) == pytest.approx(instances)


def test_vectorised_cost_matches_cost_per_row(model):
    space = Space.from_text("""\
name: s
parameters:
  - {name: processes, type: integer, levels: [4, 8], role: workload, layer: application}
  - {name: device_class, type: categorical, levels: [slow, fast], role: system, layer: device}
  - {name: devices, type: integer, levels: [1, 2], role: system, layer: device}
""")
    configurations = space.full_factorial()
    indices = np.array([[p.levels.index(c[p.name]) for p in space.parameters] for c in configurations])
    active = np.ones_like(indices, dtype=bool)
    seconds = np.arange(1, len(configurations) + 1) * 100.0
    vectorised = model.cost_indices(seconds, space, indices, active)
    assert vectorised == pytest.approx([model.cost(s, c) for s, c in zip(seconds, configurations)])


def test_unknown_or_invalid_device_classes_are_refused_in_one_line(model, tmp_path):
    with pytest.raises(CostError, match="no device class 'turbo'.*known: slow, fast"):
        model.cost(60, {"device_class": "turbo", "processes": 4})
    bad = tmp_path / "bad.yaml"
    bad.write_text(PRICING.replace("write_mbps: 33", "write_mbps: -1"))
    with pytest.raises(CostError, match="'slow' needs write_mbps, a positive number, got -1"):
        CostModel.from_yaml(bad)
    bad.write_text(PRICING + "default_device_class: medium\n")
    with pytest.raises(CostError, match="default_device_class 'medium'"):
        CostModel.from_yaml(bad)
