"""PB-guided collection and the PB-guided and random walks (paper 000, end of Sec. 4.1 and Sec. 5.5)."""

import pytest

from iotune.samplers import make_sampler, optimize
from iotune.screening import ScreeningError, pb_guided_configurations
from iotune.space import Space

SPACE = Space.from_text("""
name: sep
parameters:
  - {name: a, type: integer, levels: [0, 1, 2, 3], role: system, layer: mpiio}
  - {name: b, type: integer, levels: [0, 1, 2, 3], role: system, layer: mpiio}
  - {name: c, type: integer, levels: [0, 1, 2], role: system, layer: mpiio}
  - {name: d, type: integer, levels: [0, 1, 2], role: system, layer: mpiio}
  - {name: e, type: integer, levels: [0, 1], role: workload, layer: application}
constraints: ["a + b < 6"]
""")
OPTIMUM = {"a": 3, "b": 2, "c": 2, "d": 1, "e": 1}
WEIGHTS = {"a": 10.0, "b": 5.0, "c": 2.0, "d": 1.0, "e": 0.5}
RANKING = ["a", "b", "c", "d", "e"]


def separable(configuration):
    return sum(w * abs(configuration[n] - OPTIMUM[n]) for n, w in WEIGHTS.items())


def off_default(configuration):
    return {n for n in RANKING if configuration[n] != SPACE.parameter(n).default}


def test_collection_respects_the_budget_and_varies_top_ranked_first():
    configurations = pb_guided_configurations(SPACE, RANKING, 30, seed=1)
    assert len(configurations) == 30 and len({c.key for c in configurations}) == 30
    assert off_default(configurations[0]) == set()
    assert [off_default(c) for c in configurations[1:4]] == [{"a"}] * 3
    stages = [max((RANKING.index(n) for n in off_default(c)), default=-1) for c in configurations]
    assert stages == sorted(stages)
    assert all(c["a"] + c["b"] < 6 for c in configurations)
    assert 2 in stages and max(stages) == 2  # 16 - 1 (a, b) fit whole; c's stage is sampled to fill the budget


def test_collection_is_seeded_and_stops_when_the_ranked_space_is_exhausted():
    assert pb_guided_configurations(SPACE, RANKING, 20, seed=4) == pb_guided_configurations(SPACE, RANKING, 20, seed=4)
    assert len(pb_guided_configurations(SPACE, ["c"], 50)) == 3
    with pytest.raises(ScreeningError):
        pb_guided_configurations(SPACE, RANKING, 0)


def evaluations_to(result, value):
    return next(i + 1 for i, (_, seen) in enumerate(result.history) if seen <= value)


def test_walks_find_the_optimum_and_pb_guided_needs_fewer_evaluations():
    guided = optimize(make_sampler("pb-walk", SPACE, options={"ranking": RANKING}), separable)
    assert dict(guided.best) == OPTIMUM and guided.best_value == 0.0
    assert guided.evaluations == 1 + 3 + 2 + 2 + 2 + 1  # default, then new levels; b = 3 breaks a + b < 6
    randomly = optimize(make_sampler("random", SPACE, seed=7), separable)
    assert dict(randomly.best) == OPTIMUM and randomly.evaluations == SPACE.count_valid()
    assert evaluations_to(guided, 0.0) < evaluations_to(randomly, 0.0)


def test_walk_budgets_are_respected():
    assert optimize(make_sampler("pb-walk", SPACE, budget=4, options={"ranking": RANKING}), separable).evaluations == 4
    short = optimize(make_sampler("random", SPACE, budget=10, seed=2), separable)
    assert short.evaluations == 10 and short.best_value == min(v for _, v in short.history)
