"""Table-2-style evaluation (paper 003, Table 2) on synthetic maps and a synthetic study (temp store)."""

import numpy as np
import pytest

from iotune.variability import evaluate, evaluate_maps
from iotune.variability.errors import VariabilityError
from iotune.variability.evaluation import training_size
from iotune.variability.maps import MapPoints


def _grid_map(values):
    g = np.stack(np.meshgrid(np.linspace(0, 1, 5), np.linspace(0, 1, 5)), -1).reshape(-1, 2)
    y = values(g)
    return MapPoints((), g, y, [str(i) for i in range(len(y))], np.zeros(2), np.ones(2), np.ones(2, bool))


def test_training_size_rounds_half_up_and_keeps_a_test_point():
    assert [training_size(p, 810) for p in (0.1, 0.5, 0.9)] == [81, 405, 729]
    assert training_size(0.5, 5) == 3 and training_size(0.1, 4) == 1 and training_size(0.9, 4) == 3


def test_linear_map_is_learnt_exactly_by_every_predictor():
    maps = [_grid_map(lambda g: 1.0 + 2.0 * g[:, 0] + 0.5 * g[:, 1])]
    rows = evaluate_maps(maps, ("linear", "lsp", "delaunay"), (0.8, 0.5), repeats=5)
    assert [r.train_proportion for r in rows] == [0.8, 0.5]
    for row in rows:
        assert row.are["linear"] == pytest.approx(0.0, abs=1e-9)
        assert row.are["lsp"] < 0.05


def test_seeded_and_zero_targets_left_out():
    maps = [_grid_map(lambda g: g[:, 0] * (1 + g[:, 1] ** 2))]
    a = evaluate_maps(maps, ("linear", "mars"), (0.6,), repeats=4, seed=3)
    b = evaluate_maps(maps, ("linear", "mars"), (0.6,), repeats=4, seed=3)
    assert a == b
    assert np.isfinite(a[0].are["linear"]) and np.isfinite(a[0].are["mars"])


def test_bad_arguments():
    maps = [_grid_map(lambda g: 1 + g[:, 0])]
    with pytest.raises(VariabilityError):
        evaluate_maps(maps, ("nope",))
    with pytest.raises(VariabilityError):
        evaluate_maps(maps, proportions=(1.0,))
    with pytest.raises(VariabilityError):
        evaluate_maps(maps, repeats=0)


def test_study_table_has_all_predictors(var_repeats):
    rows = evaluate(var_repeats, n_repeats=2, proportions=(0.9, 0.5, 0.1))
    assert len(rows) == 3
    for row in rows:
        assert set(row.are) == {"lsp", "mars", "delaunay", "linear"}
        assert row.maps["lsp"] == 6
    assert rows[-1].failed["delaunay"] > 0
