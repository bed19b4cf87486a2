"""Synthetic test data: studies whose trial times are a known function of the configuration plus seeded noise.

Nothing here was measured.  ``true_time`` is the ground truth the tests check
the learners against: the best system options depend on the workload
(collective buffering helps small transfers and hurts large ones; large
transfers want many stripes), so a model must learn interactions.
"""

from __future__ import annotations

import math

import numpy as np

from iotune.records import Measurement, PhaseResult
from iotune.space import Space

SPACE_YAML = """\
name: synthetic
description: test data, a known function of the configuration
parameters:
  - name: transfer_size
    type: size
    levels: [64KiB, 4MiB]
    role: workload
    layer: application
  - name: pattern
    type: categorical
    levels: [contiguous, strided]
    role: workload
    layer: application
  - name: cb_nodes
    type: integer
    levels: [1, 2, 4, 8]
    default: 1
    role: system
    layer: mpiio
  - name: romio_cb_write
    type: categorical
    levels: [automatic, enable, disable]
    default: automatic
    role: system
    layer: mpiio
  - name: striping_factor
    type: integer
    levels: [1, 16]
    default: 1
    role: system
    layer: filesystem
"""

BYTES = 64 * 2**20


def space() -> Space:
    return Space.from_text(SPACE_YAML, source="synthetic test space")


def true_time(config: dict) -> float:
    """Noise-free I/O seconds of a configuration (test ground truth, not a model of any machine)."""
    small = config["transfer_size"] < 2**20
    base = (4.0 if small else 1.0) * (1.5 if config["pattern"] == "strided" else 1.0)
    best_cb = 8 if small else 2
    cb = 1.0 + 0.3 * abs(math.log2(config["cb_nodes"]) - math.log2(best_cb))
    write = {"automatic": 1.0, "enable": 0.6 if small else 1.3, "disable": 1.4 if small else 0.8}
    stripes = 1.0 + (0.8 if config["striping_factor"] == 1 else 0.0) * (0.2 if small else 1.0)
    return base * cb * write[config["romio_cb_write"]] * stripes


def measurement(seconds: float) -> Measurement:
    """A COMPLETE trial of ``seconds``: 60 % write, 40 % read, BYTES each."""
    write, read = 0.6 * seconds, 0.4 * seconds
    return Measurement(status="COMPLETE", phases=[
        PhaseResult("write", BYTES, write, 0.0, write, 0.0, 1, None),
        PhaseResult("read", BYTES, read, 0.0, read, 0.0, 1, 0),
    ], runner="synthetic", command="synthetic test data")


def build_study(store, name: str = "synth", repeats: int = 2, noise: float = 0.03, seed: int = 0,
                skip_default_of: str | None = None):
    """Create study ``name`` with every configuration measured ``repeats`` times (multiplicative noise).

    ``skip_default_of``: a workload key whose default configuration is left
    unmeasured (to test the ``relative`` target's dropped rows).
    """
    sp = space()
    study = store.create_study(name, sp.to_yaml(), sp.hash, {"runner": "synthetic"}, "synthetic test data")
    rng = np.random.default_rng(seed)
    for configuration in sp.enumerate():
        config = configuration.to_dict()
        is_default = all(config[p.name] == p.default for p in sp.system_parameters)
        if is_default and configuration.workload_key == skip_default_of:
            continue
        for repeat in range(repeats):
            trial = store.start_trial(study.id, config, configuration.key, configuration.workload_key, repeat)
            seconds = true_time(config) * float(np.exp(rng.normal(0.0, noise)))
            store.finish_trial(trial, measurement(seconds))
    return study
