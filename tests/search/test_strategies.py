"""Search heuristics: optimum of a separable integer function, memo, budget, ask/tell order."""

import math

import pytest

from iotune.search import (
    STRATEGIES,
    Box,
    Categorical,
    Integer,
    Log2Integer,
    Memo,
    RandomSearch,
    SearchError,
    make_strategy,
    optimize,
)

BOX = Box([Integer("x", 0, 40), Integer("y", -10, 30), Log2Integer("z", 1, 1024), Categorical("c", ("a", "b", "c"))])
SMALL = Box([Integer("x", 0, 9), Log2Integer("z", 1, 16), Categorical("c", ("a", "b"))])


def separable(point):
    return ((point["x"] - 17) ** 2 + (point["y"] - 5) ** 2 + (math.log2(point["z"]) - 6) ** 2
            + (0 if point["c"] == "b" else 3))


def small(point):
    return (point["x"] - 3) ** 2 + (math.log2(point["z"]) - 2) ** 2 + (point["c"] == "a")


@pytest.mark.parametrize("name", ["nelder-mead", "annealing", "genetic", "pso"])
@pytest.mark.parametrize("seed", [0, 1])
def test_local_strategies_find_the_optimum(name, seed):
    result = optimize(make_strategy(name, BOX, seed=seed), separable, budget=500)
    assert result.best_value == 0.0
    assert result.best_point == {"x": 17, "y": 5, "z": 64, "c": "b"}


@pytest.mark.parametrize("name", ["random", "lhs"])
def test_sampling_strategies_find_the_optimum_of_a_small_box(name):
    result = optimize(make_strategy(name, SMALL, seed=0), small, budget=80)
    assert result.best_point == {"x": 3, "z": 4, "c": "b"}
    assert result.evaluations <= 80


@pytest.mark.parametrize("name", list(STRATEGIES))
def test_memo_counts_distinct_points_only(name):
    calls = []
    result = optimize(make_strategy(name, SMALL, seed=1), lambda p: calls.append(p) or small(p), budget=40)
    keys = [tuple(p.values()) for p in calls]
    assert len(keys) == len(set(keys)) == result.evaluations == len(result.history)


@pytest.mark.parametrize("name", list(STRATEGIES))
def test_same_seed_same_search(name):
    runs = [optimize(make_strategy(name, BOX, seed=7), separable, budget=50).history for _ in range(2)]
    assert runs[0] == runs[1]


def test_ask_after_budget_returns_none():
    strategy = RandomSearch(BOX, seed=0, budget=3)
    for _ in range(3):
        point = strategy.ask()
        strategy.tell(point, separable(point))
    assert strategy.ask() is None
    assert strategy.evaluations == 3


def test_exhausted_box_ends_the_search():
    result = optimize(RandomSearch(SMALL, seed=0), small)
    assert result.evaluations == SMALL.size
    assert result.best_value == 0.0


def test_shared_memo_answers_repeats_without_counting():
    memo = Memo()
    first = optimize(RandomSearch(SMALL, seed=0, memo=memo), small, budget=30)
    second = optimize(RandomSearch(SMALL, seed=0, memo=memo), small, budget=10)
    assert first.evaluations == 30 and second.evaluations == 10 and len(memo) == 40
    assert not {tuple(p.values()) for p, _ in first.history} & {tuple(p.values()) for p, _ in second.history}


def test_ask_tell_order_is_enforced():
    strategy = RandomSearch(BOX, seed=0)
    point = strategy.ask()
    with pytest.raises(SearchError):
        strategy.ask()
    other = dict(point, x=(point["x"] + 1) % 41)
    with pytest.raises(SearchError):
        strategy.tell(other, 1.0)
    with pytest.raises(SearchError):
        strategy.tell(point, float("nan"))


@pytest.mark.parametrize("bad", [lambda: Log2Integer("z", 3, 16), lambda: Integer("x", 5, 1),
                                 lambda: Categorical("c", ()), lambda: Box([Integer("x", 0, 1), Integer("x", 0, 2)]),
                                 lambda: make_strategy("hill", SMALL), lambda: RandomSearch(SMALL, budget=0)])
def test_invalid_spaces_and_strategies(bad):
    with pytest.raises(SearchError):
        bad()


def test_box_round_trips():
    for key in [(0, 0, 0, 0), (40, 40, 10, 2), (17, 15, 6, 1)]:
        assert BOX.key(BOX.point(key)) == key
        assert BOX.from_unit(BOX.to_unit(key)) == key
    assert BOX.size == 41 * 41 * 11 * 3
    assert len(list(SMALL.keys())) == SMALL.size
