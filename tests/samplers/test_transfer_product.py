"""The transfer sampler fed as ``iotune tune`` and the replay benchmark feed it: chosen candidates, no
baseline, the store's repeats in the prior, a price known for configurations the target cannot run."""

import math

import numpy as np
import pytest

from iotune.samplers import Outcome, SamplerError, TransferSampler
from iotune.space import Space

SPACE = Space.from_text("""
name: two
parameters:
  - {name: size, type: size, levels: [64KiB, 1MiB, 16MiB], role: workload, layer: application}
  - {name: nodes, type: integer, levels: [1, 2, 4, 8], role: system, layer: mpiio}
  - {name: mode, type: categorical, levels: [a, b, c], role: system, layer: mpiio}
""")


def seconds(configuration):
    """Every workload is fastest at nodes=4, mode=b (not the default: nodes=1, mode=a)."""
    return (1 + abs(math.log2(configuration["nodes"] / 4))) * {"a": 2.0, "b": 1.0, "c": 1.5}[configuration["mode"]]


def of(size):
    return [c for c in SPACE.full_factorial() if c["size"] == size]


def prior(repeats=1, spread=0.1):
    return [(c, Outcome.of([seconds(c) * (1 + spread * r) for r in range(repeats)]))
            for size in (65536, 16 * 2**20) for c in of(size)]


def test_candidates_restrict_the_choice_to_the_ones_given():
    mine = [c for c in of(2**20) if c["mode"] != "b"]
    sampler = TransferSampler(SPACE, budget=6, workload={"size": 2**20}, prior=prior(), candidates=mine)
    assert [c.key for c in sampler.candidates] == [c.key for c in mine]
    asked = set()
    while batch := sampler.ask(1):
        asked.add(batch[0].key)
        sampler.tell(batch[0], Outcome.of([seconds(batch[0])]))
    assert asked and asked <= {c.key for c in mine}
    with pytest.raises(SamplerError, match="not a configuration of workload"):
        TransferSampler(SPACE, workload={"size": 2**20}, candidates=of(65536))


def test_without_a_baseline_the_first_run_is_the_other_workloads_winner_not_the_default():
    with_baseline = TransferSampler(SPACE, budget=3, workload={"size": 2**20}, prior=prior())
    assert with_baseline.ask(1) == [with_baseline.default]
    without = TransferSampler(SPACE, budget=3, workload={"size": 2**20}, prior=prior(), baseline=False)
    first = without.ask(1)[0]
    assert first != without.default and (first["nodes"], first["mode"]) == (4, "b")


def test_the_engine_sees_every_repeat_of_the_prior_and_its_noise():
    single = TransferSampler(SPACE, workload={"size": 2**20}, prior=prior(repeats=1))
    assert single.engine.prior.noise is None
    repeated = TransferSampler(SPACE, workload={"size": 2**20}, prior=prior(repeats=2, spread=0.1))
    # two runs per configuration, 10 % apart: the pooled spread of log values is log(1.1) / sqrt(2)
    assert repeated.engine.prior.noise == pytest.approx(math.log(1.1) / math.sqrt(2), rel=1e-6)


def test_a_known_price_covers_prior_configurations_the_target_cannot_run():
    mine = [c for c in of(2**20) if c["nodes"] <= 2]
    price = lambda c: float(c["nodes"])  # noqa: E731 - a price per second that grows with the nodes
    sampler = TransferSampler(SPACE, budget=4, workload={"size": 2**20}, prior=prior(), candidates=mine,
                              price=price, objective="cost")
    np.testing.assert_allclose(sampler.prices, [price(c) for c in mine])
    assert sampler.ask(1)  # the prior ran nodes=4 and 8, which are not candidates: still priced


def test_a_configuration_that_cannot_run_is_not_a_miss_of_the_trust_region():
    price = lambda c: float(c["nodes"])  # noqa: E731
    sampler = TransferSampler(SPACE, budget=10, workload={"size": 2**20}, prior=prior(), price=price,
                              objective="cost", baseline=False)
    for _ in range(3):  # the warm start and one run the experts chose
        configuration = sampler.ask(1)[0]
        sampler.tell(configuration, Outcome.of([seconds(configuration) * price(configuration)]))
    before = sampler.engine.trust_radius(sampler._told())
    sampler.tell(sampler.ask(1)[0], Outcome("INVALID"))
    assert sampler.invalid and sampler.engine.trust_radius(sampler._told()) == before


def test_the_reason_says_when_a_choice_is_kept_near_the_best_run():
    price = lambda c: float(c["nodes"])  # noqa: E731
    sampler = TransferSampler(SPACE, budget=12, workload={"size": 2**20}, prior=prior(), price=price,
                              objective="cost", baseline=False)
    said = []
    while batch := sampler.ask(1):
        configuration = batch[0]
        narrowed = math.isfinite(sampler.engine.trust_radius(sampler._told()))
        said.append((narrowed, "trust region" in sampler.reason(configuration), sampler.engine.regime(sampler._told())))
        # every run after the warm start slower than the first: each is a miss
        value = seconds(configuration) * price(configuration) * (1.0 if len(said) == 1 else 3.0)
        sampler.tell(configuration, Outcome.of([value]))
    assert any(narrowed and regime == "prior" for narrowed, _, regime in said)
    assert all(text == (narrowed and regime == "prior") for narrowed, text, regime in said)


def test_a_reason_states_the_95_percent_interval_the_tuner_expects_the_run_in():
    sampler = TransferSampler(SPACE, budget=6, workload={"size": 2**20}, prior=prior(), baseline=False)
    stated = []
    while batch := sampler.ask(1):
        configuration = batch[0]
        mean, std = sampler.engine.expectation(sampler._told())
        index = sampler.index[configuration.key]
        stated.append((sampler.reason(configuration), math.exp(mean[index] - 1.96 * std[index]),
                       math.exp(mean[index] + 1.96 * std[index])))
        sampler.tell(configuration, Outcome.of([seconds(configuration)]))
    modelled = [(text, low, high) for text, low, high in stated if "expects" in text]
    assert modelled
    for text, low, high in modelled:
        assert f"95 %: {low:.4g} s to {high:.4g} s" in text and low < high


def test_an_interval_beyond_a_floats_range_is_stated_open_not_a_crash():
    from iotune.samplers.transfer import _interval

    # a statement that missed its runs by far is widened by far (hindsight): its top end overflowed math.exp
    assert _interval(0.0, 400.0, "time") == "95 %: 0 s to inf s"
    assert _interval(0.0, 400.0, "bandwidth") == "95 %: 0 MiB/s to inf MiB/s"
