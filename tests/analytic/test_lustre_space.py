"""The Lustre search space and objective (paper 004, Table IV)."""

import pytest

from iotune.analytic import LustreQueueModel, ModelError
from iotune.analytic.lustre_space import LustreObjective, lustre_space
from iotune.samplers import make_sampler, optimize

MODEL = LustreQueueModel(0.1, 0.125, 62.5e6)


def test_reduces_to_the_paper_model():
    objective = LustreObjective(MODEL, "50GB", seek_s=0.0)
    for n in (1, 5, 20, 160):
        point = {"stripe_count": n, "stripe_size_mib": 1, "transfer_size_mib": 256, "processes": 1}
        assert objective(point) == pytest.approx(MODEL.completion_time("50GB", n))
    paper = LustreObjective(MODEL, "50GB", seek_s=0.0, exact=False)
    point = {"stripe_count": 7, "stripe_size_mib": 1, "transfer_size_mib": 256, "processes": 1}
    assert paper(point) == pytest.approx(MODEL.completion_time("50GB", 7, exact=False))


def test_space_is_table_iv():
    space = lustre_space()
    assert space.size == 160 * 9 * 9 * 11
    assert space.configuration({}) == {"stripe_count": 1, "stripe_size_mib": 1, "transfer_size_mib": 1, "processes": 1}


def test_exhaustive_matches_the_vectorised_grid_and_search_gets_within_one_percent():
    objective = LustreObjective(MODEL, "50GB")
    space = lustre_space()
    best, value, points = objective.exhaustive(space)
    assert points == space.size and objective(best) == pytest.approx(value)
    result = optimize(make_sampler("nelder-mead", space, seed=0, budget=150), objective)
    assert value <= result.best_value <= 1.01 * value


def test_bad_arguments():
    with pytest.raises(ModelError):
        LustreObjective(MODEL, -1)
    with pytest.raises(ModelError):
        LustreObjective(MODEL, "1GB", ost_count=0)
