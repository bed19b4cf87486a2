"""ConstantLiar: N proposals at a time from a sequential sampler, reproducible, never off the budget, and its
true search is exactly the sequential one."""

import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iotune.samplers import HEURISTICS, Outcome, SamplerError, make_sampler
from iotune.samplers.parallel import ConstantLiar, parallel
from iotune.space import Space

SPACE = Space.from_text("""
name: parallel
parameters:
  - {name: x, type: integer, range: [0, 15], role: system, layer: application}
  - {name: y, type: integer, range: [0, 15], role: system, layer: application}
  - {name: c, type: categorical, levels: [a, b, c], role: system, layer: application}
""")
SEQUENTIAL = (*HEURISTICS, "pb-walk")


def value(c):
    return (c["x"] - 11) ** 2 + (c["y"] - 4) ** 2 + 5 * (c["c"] != "b") + 1


def factory(name, budget=40, seed=0, **options):
    if name == "pb-walk":
        options.setdefault("levels", {"x": (0, 15), "y": (0, 15)})
    return lambda: make_sampler(name, SPACE, seed=seed, budget=budget, options=options)


def drive(sampler, evaluate=value, shuffle_tells=None):
    """Ask batches until done; tell each batch (in ask order, or shuffled); return the batches."""
    batches = []
    while batch := sampler.ask(sampler.batch or 10**6):
        batches.append([c.key for c in batch])
        told = list(batch)
        if shuffle_tells is not None:
            shuffle_tells.shuffle(told)
        for configuration in told:
            result = evaluate(configuration)
            outcome = Outcome("FAILED") if result is None else Outcome("COMPLETE", result, (result,))
            sampler.tell(configuration, outcome)
    return batches


@pytest.mark.parametrize("name", SEQUENTIAL)
def test_the_true_search_is_the_sequential_one(name):
    serial = [key for batch in drive(factory(name)()) for key in batch]
    liar = ConstantLiar(factory(name), 3)
    batches = drive(liar)
    path = [c.key for c, _ in liar._history]
    assert path == serial[:len(path)]
    measured = [key for batch in batches for key in batch]
    assert len(measured) == len(set(measured)) <= 40
    assert all(len(batch) <= 3 for batch in batches) and max(len(b) for b in batches) == 3
    assert liar.hits <= liar.speculated == len(measured) - len(batches)


@pytest.mark.parametrize("name", SEQUENTIAL)
def test_same_seed_and_outcomes_give_the_same_batches_whatever_order_they_are_told_in(name):
    first = drive(ConstantLiar(factory(name, seed=3), 3))
    again = drive(ConstantLiar(factory(name, seed=3), 3), shuffle_tells=random.Random(1))
    assert first == again


def test_a_genetic_generation_is_speculated_without_a_miss():
    liar = ConstantLiar(factory("genetic", budget=9, population=6), 3)
    batches = drive(liar)
    assert [len(b) for b in batches] == [3, 3, 3]
    # the first generation (6 children) does not depend on its own values: its 4 speculated children are hits
    # (the last batch's speculations are never asked about: the budget ends the search)
    assert liar.hits == 4 and liar.speculated == 6
    assert [c.key for c, _ in liar._history] == [key for batch in batches for key in batch][:len(liar._history)]


def test_parallel_wraps_only_samplers_that_propose_one_at_a_time():
    assert isinstance(parallel(factory("genetic"), 3), ConstantLiar)
    assert not isinstance(parallel(factory("genetic"), 1), ConstantLiar)
    full = parallel(lambda: make_sampler("full", SPACE), 3)
    assert full.batch is None and not isinstance(full, ConstantLiar)


def test_asking_again_before_the_batch_is_told_is_refused():
    liar = ConstantLiar(factory("annealing"), 2)
    batch = liar.ask(2)
    with pytest.raises(SamplerError, match="tell"):
        liar.ask(2)
    for configuration in batch:
        liar.tell(configuration, Outcome("FAILED"))
    assert liar.ask(2)


def test_bad_arguments_are_one_clear_error():
    with pytest.raises(SamplerError, match="workers"):
        ConstantLiar(factory("pso"), 0)
    with pytest.raises(SamplerError, match="lie"):
        ConstantLiar(factory("pso"), 2, lie="optimistic")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(SEQUENTIAL), workers=st.integers(1, 5), lie=st.sampled_from(["best", "mean", "worst"]),
       seed=st.integers(0, 5), fail=st.floats(0, 1), budget=st.integers(1, 30))
def test_failures_and_any_batch_size_never_break_it(name, workers, lie, seed, fail, budget):
    if name == "pb-walk":
        budget += 16  # its screening design must fit in the budget (a smaller one is a one-line error)
    rng = random.Random(seed)
    liar = ConstantLiar(factory(name, budget=budget, seed=seed), workers, lie=lie)
    batches = drive(liar, lambda c: None if rng.random() < fail else value(c))
    measured = [key for batch in batches for key in batch]
    assert len(measured) == len(set(measured)) <= budget
    if liar.best is not None:
        assert math.isfinite(liar.best[1].value)
