"""Variability maps fitted on a synthetic study (temp SQLite store, no MPI; see ``repeats_data.py``)."""

import numpy as np
import pytest

from iotune.store import Store
from iotune.stored import StoredStudy
from iotune.variability import Repeats, VariabilityMap, describe, map_points
from iotune.variability.errors import VariabilityError


def test_one_map_per_category_with_scaled_coordinates(var_repeats):
    maps = map_points(var_repeats, "std")
    assert len(maps) == 6
    for points in maps:
        assert points.X.shape == (16, 3)
        assert points.X.min() == 0.0 and points.X.max() == 1.0


@pytest.mark.parametrize("predictor", ["lsp", "delaunay"])
def test_interpolants_reproduce_the_measured_spread(var_repeats, predictor):
    fitted = VariabilityMap("std", predictor).fit(var_repeats)
    measured = np.array([describe(t).std for t in var_repeats.times])
    assert np.allclose(fitted.predict(var_repeats.configs), measured)
    assert fitted.in_sample_are_ == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("target", ["std", "cv", "mean", "q95"])
@pytest.mark.parametrize("predictor", ["mars", "linear"])
def test_every_target_and_regressor_fits(var_repeats, target, predictor):
    fitted = VariabilityMap(target, predictor).fit(var_repeats)
    assert np.isfinite(fitted.in_sample_are_) and fitted.in_sample_are_ >= 0
    assert np.all(np.isfinite(fitted.predict(var_repeats.configs[:10])))


def test_single_map_encodes_categories(var_repeats):
    fitted = VariabilityMap("cv", "linear", per_category=False).fit(var_repeats)
    assert list(fitted.maps_) == [()]
    assert any("=" in name for name in fitted.coordinates_)


def test_unmeasured_category_is_a_clear_error(var_db):
    with Store(var_db) as store:
        gap = Repeats.from_study(StoredStudy.open(store, "gap"))
        full = Repeats.from_study(StoredStudy.open(store, "var"))
    fitted = VariabilityMap("std", "lsp").fit(gap)
    assert len(fitted.maps_) == 4
    missing = [c for c in full.configs if (c["romio_cb_write"], c["pattern"]) == ("enable", "strided")]
    with pytest.raises(VariabilityError, match="never measured"):
        fitted.predict(missing[:1])
    inside = [c for c in full.configs if c["romio_cb_write"] == "automatic"]
    assert np.all(fitted.predict(inside) > 0)


def test_errors_for_bad_options_and_single_runs(var_db, var_repeats):
    with pytest.raises(VariabilityError, match="predictor"):
        VariabilityMap("std", "kriging").fit(var_repeats)
    with pytest.raises(VariabilityError, match="target"):
        VariabilityMap("iqr", "lsp").fit(var_repeats)
    with pytest.raises(VariabilityError, match="not fitted"):
        VariabilityMap().predict(var_repeats.configs)
    with Store(var_db) as store:
        once = Repeats.from_study(StoredStudy.open(store, "once"))
    with pytest.raises(VariabilityError, match=">= 2 repeats"):
        VariabilityMap().fit(once)
    assert len(VariabilityMap("mean", "linear").fit(once).maps_) == 6
