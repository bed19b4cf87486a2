"""Small spaces with exhaustive synthetic data and TrainedModel objects built from fitted sklearn estimators."""

import math

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeRegressor

from iotune.learn import TrainedModel
from iotune.space import Space

HINTS = """
name: hints
parameters:
  - {name: transfer_size, type: size, levels: [64KiB, 1MiB], role: workload, layer: application}
  - {name: collective, type: boolean, levels: [true, false], role: workload, layer: mpiio}
  - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio,
     when: "collective"}
  - {name: cb_buffer_size, type: size, levels: [1MiB, 4MiB, 16MiB], role: system, layer: mpiio,
     when: "collective and romio_cb_write != 'disable'"}
  - {name: striping_factor, type: integer, levels: [1, 4, 8], role: system, layer: filesystem, hint: striping_factor}
"""

CLOUD = """
name: cloud
parameters:
  - {name: processes, type: integer, levels: [32, 64], role: workload, layer: application}
  - {name: instance_type, type: categorical, levels: [cc1.4xlarge, cc2.8xlarge], role: system, layer: device}
  - {name: placement, type: categorical, levels: [part-time, dedicated], role: system, layer: filesystem}
  - {name: io_servers, type: integer, levels: [1, 2, 4], role: system, layer: filesystem}
"""


def make_model(space, target_fn, estimator=None, target="time", name="m"):
    """Fit ``estimator`` (default: a full-depth tree) on every valid configuration of ``space``."""
    configs = list(space.enumerate())
    X = space.encode(configs)
    y = np.array([target_fn(c) for c in configs], dtype=float)
    estimator = (DecisionTreeRegressor(random_state=0) if estimator is None else estimator).fit(X, y)
    return TrainedModel(name, type(estimator).__name__, estimator, space, "onehot", target, "hash", "study", len(y))


@pytest.fixture
def hints_space():
    return Space.from_text(HINTS)


@pytest.fixture
def cloud_space():
    return Space.from_text(CLOUD)


def synthetic_time(c):
    """Seconds, linear in the encoded features; unique optimum for 1MiB collective: enable, 16MiB buffer, 8 stripes."""
    t = 10.0 - 0.25 * c["striping_factor"]
    t -= {"automatic": 1.0, "enable": 3.0, "disable": 0.0, None: 0.0}[c["romio_cb_write"]]
    if c["cb_buffer_size"] is not None:
        t -= 0.5 * math.log2(c["cb_buffer_size"] / (1 << 20))
    return t + (c["transfer_size"] == 64 << 10) * 5.0


@pytest.fixture
def linear():
    return LinearRegression
