"""Synthetic repeated runs for the variability tests: nothing here was measured.

The study reuses the learning tests' space and trial format
(``tests/learn/synthetic.py``); each configuration's runs are normal around
``true_time`` with a standard deviation that is a known smooth function of the
configuration (``true_cv`` x time), so maps have something to learn.
"""

from __future__ import annotations

import math

import numpy as np
from tests.learn import synthetic


def true_cv(config: dict) -> float:
    """Coefficient of variation of a configuration's runs (test ground truth)."""
    return 0.02 + 0.01 * math.log2(config["cb_nodes"]) + (0.03 if config["striping_factor"] == 16 else 0.0) \
        + (0.02 if config["transfer_size"] < 2**20 else 0.0)


def build(store, name: str = "var", repeats: int = 8, seed: int = 0, skip: tuple = (), single_run: int = 0):
    """Study ``name``: every configuration run ``repeats`` times, except categories listed in ``skip``
    (pairs (romio_cb_write, pattern) never measured) and the first ``single_run`` configurations (run once)."""
    sp = synthetic.space()
    study = store.create_study(name, sp.to_yaml(), sp.hash, {"runner": "synthetic"}, "synthetic variability data")
    rng = np.random.default_rng(seed)
    for index, configuration in enumerate(sp.enumerate()):
        config = configuration.to_dict()
        if (config["romio_cb_write"], config["pattern"]) in skip:
            continue
        mean = synthetic.true_time(config)
        for repeat in range(1 if index < single_run else repeats):
            trial = store.start_trial(study.id, config, configuration.key, configuration.workload_key, repeat)
            seconds = max(1e-3, mean * (1.0 + true_cv(config) * rng.standard_normal()))
            store.finish_trial(trial, synthetic.measurement(seconds))
    return study
