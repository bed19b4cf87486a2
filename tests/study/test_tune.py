"""The budgeted tuner (a campaign driven by the transfer sampler): prior from other workloads, resumable, failures
penalised."""

import math

import pytest

from iotune.records import Measurement, PhaseResult
from iotune.spec import CampaignSpec
from iotune.store import Store
from iotune.study import Objective, Study, Worker
from iotune.study.measure import prepare
from iotune.study.tune import TuneError, Tuning

SPEC_TEXT = """
name: landscape
parameters:
  - {name: transfer_size, type: size, levels: [64KiB, 256KiB, 1MiB, 4MiB], role: workload, layer: application}
  - {name: romio_cb_write, type: categorical, levels: [automatic, enable, disable], role: system, layer: mpiio}
  - {name: cb_nodes, type: integer, levels: [1, 2, 4], role: system, layer: mpiio}
  - {name: cb_buffer_size, type: size, levels: [1MiB, 4MiB, 16MiB], role: system, layer: mpiio}
benchmark: {api: MPIIO, processes: 2, block_size: 16MiB, collective: true}
campaign: {repeats: 2}
"""
SPEC = CampaignSpec.from_text(SPEC_TEXT)


class Landscape:
    """A stand-in for storage (not a measurement): every workload prefers enable + 2 nodes + 4MiB buffers,
    more or less strongly, with 3% noise; ``fail`` names a hint value whose runs fail."""

    name = "landscape"

    def __init__(self, fail: str | None = None, seed: int = 0):
        import random

        self.random = random.Random(seed)
        self.fail = fail
        self.calls = []

    def run(self, spec, scratch):
        self.calls.append(dict(spec.hints))
        if self.fail and self.fail in spec.hints.values():
            return Measurement.failed("synthetic failure")
        scale = math.log2(spec.transfer_size) / 16
        cost = {"enable": 1.0, "automatic": 1.3, "disable": 2.0}[spec.hints["romio_cb_write"]] ** scale
        cost *= 1 + 0.15 * abs(math.log2(int(spec.hints["cb_nodes"]) / 2))
        cost *= 1 + 0.1 * abs(math.log2(int(spec.hints["cb_buffer_size"]) / 2**22))
        seconds = cost * (1 + 0.03 * self.random.gauss(0, 1))
        return Measurement("COMPLETE", [PhaseResult("write", spec.aggregate_bytes, seconds, 0, seconds, 0, 1)],
                           wall_seconds=seconds)

    def close(self):
        pass


def measured_store(tmp_path, workloads=("64KiB", "1MiB", "4MiB")):
    """A store whose study holds every configuration of some workloads (the shared database)."""
    store = Store(tmp_path / "db.sqlite")
    configurations = [c for c in SPEC.space.full_factorial()
                      if SPEC.space.parameter("transfer_size").format(c["transfer_size"]) in workloads]
    prepare(store, SPEC, "landscape", Landscape(), tmp_path, configurations=configurations).run()
    return store


def tuner(store, tmp_path, budget, runner=None, workload=None, **options):
    study = Study.open(store, "landscape")
    worker = Worker(study, runner or Landscape(seed=1), tmp_path)
    return Tuning(study, worker, {"transfer_size": 256 * 1024} if workload is None else workload, budget, objective=Objective("time"),
                 **options)


def true_best(workload):
    runner = Landscape()
    runner.random.gauss = lambda *_: 0.0
    times = {}
    for c in SPEC.space.full_factorial():
        if c["transfer_size"] == workload:
            from iotune.spec.mapping import benchmark_spec

            times[c.key] = runner.run(benchmark_spec(SPEC.space, c, SPEC.benchmark), None).phases[0].seconds
    return min(times.values()), times


def test_transfer_finds_the_best_in_a_few_runs_and_states_its_gain(tmp_path):
    with measured_store(tmp_path) as store:
        result = tuner(store, tmp_path, 5).run()
    optimum, times = true_best(256 * 1024)
    assert result.runs == 5 and len(result.steps) == 5
    assert result.steps[0].configuration == result.default.configuration  # the baseline first
    assert times[result.best.configuration.key] <= 1.05 * optimum
    assert result.gain > 1.2 and result.gain_low <= result.gain <= result.gain_high
    assert "similar workloads" in result.steps[1].reason


def test_a_tuning_resumes_from_the_store_and_spends_its_budget_once(tmp_path):
    with measured_store(tmp_path) as store:
        first = tuner(store, tmp_path, 3).run()
        again = tuner(store, tmp_path, 3).run()
        assert again.runs == 3 and again.steps == []  # nothing left to spend
        more = tuner(store, tmp_path, 6).run()
        assert more.runs == 6 and len(more.steps) == 3
        runs = [t for t in store.trials("landscape") if t.workload_key == first.best.configuration.workload_key]
        assert len(runs) == 6


def test_failed_runs_are_penalised_not_fatal_and_never_declared(tmp_path):
    with measured_store(tmp_path) as store:
        result = tuner(store, tmp_path, 6, runner=Landscape(fail="disable", seed=2)).run()
    assert result.best is not None and result.best.configuration["romio_cb_write"] != "disable"


def test_without_a_prior_it_still_tunes(tmp_path):
    with Store(tmp_path / "db.sqlite") as store:
        Study.create(store, "landscape", SPEC)
        result = tuner(store, tmp_path, 6).run()
    assert result.runs == 6 and result.best is not None and result.prior_workloads == 0


def test_a_workload_must_say_what_the_space_needs(tmp_path):
    with Store(tmp_path / "db.sqlite") as store:
        Study.create(store, "landscape", SPEC)
        with pytest.raises(TuneError, match="give the workload's transfer_size"):
            tuner(store, tmp_path, 3, workload={})


class Flat:
    """A stand-in for storage (not a measurement): every configuration takes the same 20 ms, each run off by a
    log-normal factor of sd 0.45 (two runs of one 4 MiB write on a busy node took 0.0104 s and 0.0343 s; the
    noise is kept within the conservative prior the tuner states, 0.5)."""

    name = "flat"

    def __init__(self, seed: int = 0):
        import random

        self.random = random.Random(seed)

    def run(self, spec, scratch):
        seconds = 0.02 * math.exp(0.45 * self.random.gauss(0, 1))
        return Measurement("COMPLETE", [PhaseResult("write", spec.aggregate_bytes, seconds, 0, seconds, 0, 1)],
                           wall_seconds=seconds)

    def close(self):
        pass


@pytest.mark.parametrize("seed", range(4))
def test_single_runs_on_a_noisy_table_claim_neither_separation_nor_gain(tmp_path, seed):
    with Store(tmp_path / "db.sqlite") as store:
        Study.create(store, "landscape", SPEC)
        result = tuner(store, tmp_path, 4, runner=Flat(seed)).run()
    assert result.best.runs == 1 and result.runner_up is not None
    assert result.separated is None  # no configuration ran twice: the runs cannot say
    assert result.gain is not None and result.gain_low is None and result.gain_high is None  # no interval claimed
    assert "conservative prior" in result.noise
    assert result.tied == []  # nor which configurations it cannot tell from the best


def test_the_tied_set_is_the_best_and_every_measured_configuration_not_separated_from_it(tmp_path):
    with measured_store(tmp_path) as store:  # a known noise (3 %): the other workloads' repeats
        result = tuner(store, tmp_path, 6).run()
    assert result.tied and result.tied[0] == result.best.configuration
    measured = {step.configuration.key for step in result.steps}
    assert {c.key for c in result.tied} <= measured
    assert (len(result.tied) == 1) == result.separated
    assert result.runner_up is not None and (result.runner_up.configuration in result.tied) == (not result.separated)


def test_repeats_elsewhere_in_the_store_set_the_noise_of_single_runs(tmp_path):
    with measured_store(tmp_path) as store:  # every configuration of three workloads, twice, 3% noise
        result = tuner(store, tmp_path, 4).run()
    assert "other repeats in the store" in result.noise and "this workload" not in result.noise
    assert result.best.high / result.best.low < 1.5  # 3% noise: a narrow interval, not the prior's


def test_each_run_says_which_regime_chose_it(tmp_path):
    store = measured_store(tmp_path)
    result = tuner(store, tmp_path, 6).run()
    reasons = [step.reason for step in result.steps]
    assert reasons[0].startswith("the default configuration")
    assert any(r.startswith("the other workloads' winners") for r in reasons)
    assert all(r.startswith(("the default", "the other workloads'", "exploring", "run again", "every run so far",
                             "race round"))
               for r in reasons), reasons


def test_under_cost_the_engine_gets_each_candidates_known_price_and_the_front_is_kept(tmp_path):
    from iotune.recommend.cost import CostModel
    from iotune.study.tune import FrontPoint, time_cost_front

    store = measured_store(tmp_path)
    study = Study.open(store, "landscape")
    from dataclasses import replace

    model = replace(CostModel.from_yaml(), default_instance_type="cc2.8xlarge")
    cost = Tuning(study, None, {"transfer_size": 256 * 1024}, 3, objective=Objective("cost", model, 2))
    prices = cost.sampler.prices
    assert prices == pytest.approx([model.cost(1.0, c.to_dict(), 2) for c in cost.candidates])
    assert Tuning(study, None, {"transfer_size": 256 * 1024}, 3, objective=Objective("time")).sampler.prices is None
    c = cost.candidates
    points = [FrontPoint(c[0], 10.0, 5.0, 1), FrontPoint(c[1], 5.0, 8.0, 1), FrontPoint(c[2], 12.0, 6.0, 1),
              FrontPoint(c[3], 20.0, 4.0, 1)]
    assert [p.configuration for p in time_cost_front(points)] == [c[1], c[0], c[3]]


def test_without_a_baseline_the_default_is_not_run_first_and_no_gain_is_stated(tmp_path):
    from iotune.study.tune import NO_BASELINE

    with measured_store(tmp_path) as store:
        result = tuner(store, tmp_path, 3, baseline=False).run()
    default = SPEC.space.configuration({"transfer_size": 256 * 1024})
    assert result.runs == 3 and default.key not in {s.configuration.key for s in result.steps}
    assert result.default is None and result.gain is None and NO_BASELINE in result.notes
