"""Every sampler over a Space: finds optima, proposes each configuration once (the transfer sampler, which
remeasures: again only one that completed), is deterministic, never raises because runs failed (property tests
drive ask/tell with random failures)."""

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iotune.samplers import (
    HEURISTICS,
    SAMPLERS,
    Grid,
    Outcome,
    SamplerError,
    make_sampler,
    optimize,
)
from iotune.space import Space

BIG = Space.from_text("""
name: big
parameters:
  - {name: x, type: integer, range: [0, 40], role: system, layer: application}
  - {name: y, type: integer, range: [-10, 30], role: system, layer: application}
  - {name: z, type: size, range: [1, 1024], role: system, layer: application}
  - {name: c, type: categorical, levels: [a, b, c], role: system, layer: application}
""")
SMALL = Space.from_text("""
name: small
parameters:
  - {name: x, type: integer, range: [0, 9], role: system, layer: application}
  - {name: z, type: size, range: [1, 16], role: system, layer: application}
  - {name: c, type: categorical, levels: [a, b], role: system, layer: application}
""")
RULED = Space.from_text("""
name: ruled
parameters:
  - {name: collective, type: boolean, role: workload, layer: mpiio}
  - {name: cb, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio,
     when: collective}
  - {name: nodes, type: integer, levels: [1, 2, 4, 8], role: system, layer: mpiio}
  - {name: buffer, type: size, levels: [1MiB, 4MiB, 16MiB], role: system, layer: mpiio}
constraints:
  - "nodes <= 4 or buffer > 1048576"
""")


PB = ("screening", "pb-collect", "pb-walk")


def build(name, space, **kwargs):
    """The sampler ``name``; the Plackett-Burman ones screen RULED with levels every design row can take; the
    transfer sampler tunes RULED's collective workload, and a seeded 2,000 of BIG's 55,473 configurations."""
    if name in PB and space is RULED:
        kwargs["options"] = {"levels": {"nodes": (1, 4)}}
    if name == "transfer":
        kwargs["options"] = {"workload": {"collective": True}} if space is RULED else {"limit": 2000}
    return make_sampler(name, space, **kwargs)


def separable(c):
    return ((c["x"] - 17) ** 2 + (c["y"] - 5) ** 2 + (math.log2(c["z"]) - 6) ** 2 + (0 if c["c"] == "b" else 3))


def small(c):
    return (c["x"] - 3) ** 2 + (math.log2(c["z"]) - 2) ** 2 + (c["c"] == "a")


@pytest.mark.parametrize("name", HEURISTICS)
@pytest.mark.parametrize("seed", [0, 1])
def test_heuristics_find_the_optimum(name, seed):
    result = optimize(make_sampler(name, BIG, seed=seed, budget=500), separable)
    assert result.best_value == 0.0
    assert result.best == {"x": 17, "y": 5, "z": 64, "c": "b"}


@pytest.mark.parametrize("name", ["random", "lhs"])
def test_sampling_finds_the_optimum_of_a_small_space(name):
    result = optimize(make_sampler(name, SMALL, seed=0, budget=80), small)
    assert result.best == {"x": 3, "z": 4, "c": "b"}
    assert result.evaluations <= 80


@pytest.mark.parametrize("name", [n for n in SAMPLERS if n != "screening" and not SAMPLERS[n].remeasures])
def test_each_configuration_is_proposed_once(name):
    calls = []
    result = optimize(make_sampler(name, SMALL, seed=1, budget=40), lambda c: calls.append(c.key) or small(c))
    assert len(calls) == len(set(calls)) == result.evaluations == len(result.history) <= 40


TINY = Space.from_text("""
name: tiny
parameters:
  - {name: x, type: integer, range: [0, 2], role: system, layer: application}
  - {name: c, type: categorical, levels: [a, b], role: system, layer: application}
""")


def two_close(seed):
    """x=0 takes 1.0 and the rest 2.0 (whatever c is), each run off by a log-normal factor of sd 0.01: the two
    configurations with x=0 are contenders that one run each cannot tell apart."""
    import random

    draw = random.Random(seed)
    return lambda c: (1.0 if c["x"] == 0 else 2.0) * math.exp(0.01 * draw.gauss(0, 1))


@pytest.mark.parametrize("name", [n for n in SAMPLERS if SAMPLERS[n].remeasures])
def test_a_sampler_that_remeasures_proposes_runs_and_repeats_only_what_completed(name):
    """Each proposal is a run: the budget counts them all, and a configuration comes again only after a run of it
    completed (a contender measured again), never twice in one batch; it stops when no run is worth it."""
    sampler = make_sampler(name, TINY, seed=1, budget=12, options={"workers": 2})
    evaluate, completed, runs = two_close(0), set(), []
    while batch := sampler.ask(sampler.batch):
        assert len({c.key for c in batch}) == len(batch) <= 2
        for configuration in batch:
            if configuration.key in {c.key for c in runs}:
                assert configuration.key in completed
            runs.append(configuration)
            sampler.tell(configuration, Outcome.of([evaluate(configuration)]))
            completed.add(configuration.key)
    assert TINY.size < len(runs) <= 12 and sampler.remaining == 12 - len(runs)  # every run counts
    assert sampler.ask(1) == [] and sampler.stopped_early  # nothing left worth a run: it says so, within budget
    again = [c for k, c in enumerate(runs) if c.key in {r.key for r in runs[:k]}]
    assert again and all(c["x"] == 0 for c in again)  # the contenders measured again, nothing else
    best, outcome = sampler.best
    assert len(outcome.values) == sum(c.key == best.key for c in runs)  # declared on the mean of its runs


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_same_seed_same_proposals(name):
    runs = [[c.key for c, _ in optimize(build(name, BIG, seed=7, budget=50), separable).history]
            for _ in range(2)]
    assert runs[0] == runs[1]


def test_budget_ends_the_sampler_and_a_space_can_be_exhausted():
    sampler = make_sampler("random", BIG, seed=0, budget=3)
    asked = sampler.ask(10)
    assert len(asked) == 3 and sampler.ask(1) == []
    result = optimize(make_sampler("random", SMALL, seed=0), small)
    assert result.evaluations == SMALL.size and result.best_value == 0.0


def test_heuristic_asks_one_at_a_time():
    sampler = make_sampler("genetic", BIG, seed=0, budget=5)
    first = sampler.ask(4)
    assert len(first) == 1
    with pytest.raises(SamplerError, match="tell"):
        sampler.ask()


def test_rules_and_constraints_are_respected():
    for name in SAMPLERS:
        result = optimize(build(name, RULED, seed=0, budget=40), lambda c: c["nodes"] + c["buffer"] / 2**20)
        for configuration, _ in result.history:
            assert RULED.is_valid(configuration)
            assert configuration["cb"] is None or configuration["collective"]


@pytest.mark.parametrize("bad, message", [
    (lambda: make_sampler("hill", SMALL), "sampler must be one of"),
    (lambda: make_sampler("genetic", SMALL, options={"populace": 3}), "takes no option populace"),
    (lambda: make_sampler("random", SMALL, budget=0), "budget"),
    (lambda: make_sampler("screening", BIG, budget=3), "cannot hold it"),
])
def test_bad_samplers_are_one_line_errors(bad, message):
    with pytest.raises(SamplerError, match=message):
        bad()


def test_grid_round_trips():
    grid = Grid(BIG)
    for key in [(0, 0, 0, 0), (40, 40, 10, 2), (17, 15, 6, 1)]:
        assert grid.key(grid.configuration(key)) == key
        assert grid.from_unit(grid.to_unit(key)) == key
    assert grid.size == 41 * 41 * 11 * 3 and len(list(Grid(SMALL).keys())) == Grid(SMALL).size


@pytest.mark.parametrize("name", list(SAMPLERS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 1000), fates=st.lists(st.sampled_from(["ok", "failed", "invalid"]), min_size=1,
                                                  max_size=60))
def test_samplers_survive_any_sequence_of_failures(name, seed, fates):
    """Failed and unrunnable configurations, long streaks of them, even nothing but them: never an exception,
    never a configuration proposed twice, never past the budget."""
    budget = max(len(fates), 16) if name in PB else len(fates)
    sampler = build(name, RULED, seed=seed, budget=budget)
    seen, completed = set(), set()
    step = 0
    while step < budget and (batch := sampler.ask(sampler.batch or 100)):
        for configuration in batch:
            if sampler.remeasures:  # again only a configuration that completed: never one that failed
                assert configuration.key not in seen or configuration.key in completed
            else:
                assert configuration.key not in seen
            seen.add(configuration.key)
            fate = fates[step % len(fates)]
            if fate == "ok":
                completed.add(configuration.key)
            step += 1
            outcome = {"ok": Outcome.of([1.0 + configuration["nodes"]]), "failed": Outcome("FAILED"),
                       "invalid": Outcome("INVALID")}[fate]
            sampler.tell(configuration, outcome)
    assert len(seen) <= budget


GATED = Space.from_text("""
name: gated
parameters:
  - {name: api, type: categorical, levels: [POSIX, MPIIO], role: workload, layer: application}
  - {name: collective, type: boolean, role: workload, layer: mpiio, when: "api == 'MPIIO'"}
  - {name: nodes, type: integer, levels: [1, 2, 4], role: system, layer: mpiio}
""")


def test_the_transfer_sampler_tunes_a_workload_whose_parameter_is_inactive():
    """api=POSIX leaves collective inactive (None), as a profile or the workload of a stored trial gives it."""
    sampler = make_sampler("transfer", GATED, budget=2, options={"workload": {"api": "POSIX", "collective": None}})
    assert len(sampler.candidates) == 3 and all(c["collective"] is None for c in sampler.candidates)
    assert sampler.ask(1) == [sampler.default]
    with pytest.raises(SamplerError, match="workload api"):
        make_sampler("transfer", GATED, budget=2, options={"workload": {"api": "HDF5"}})


def test_the_transfer_sampler_refills_a_slot_while_runs_are_outstanding():
    """Asked again before every run is told (a worker freed while others still run): never an outstanding run
    again, the outstanding ones counted in the budget, and the same proposals from the same runs."""
    def run():
        sampler = make_sampler("transfer", SMALL, seed=3, budget=6, options={"workers": 3})
        first = sampler.ask(3)
        sampler.tell(first[0], Outcome.of([small(first[0]) + 1]))
        assert sampler.remaining == 6 - 1 - 2
        refill = sampler.ask(1)
        assert len(refill) == 1 and refill[0].key not in {c.key for c in first[1:]}
        return [c.key for c in first + refill]

    assert run() == run()
