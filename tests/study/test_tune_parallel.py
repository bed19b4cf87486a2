"""The tuner with N runs in flight (the campaign refills each free slot from the transfer sampler), run by a fake queue
of workers through the real store (no Slurm): N in flight, never the same candidate twice at once, the budget
spent exactly, the same proposals from the same outcomes, and a tuning left mid-way resumed without queueing
again what was in flight."""

import hashlib
import random

import pytest

from iotune.records import Measurement, PhaseResult
from iotune.store import Store
from iotune.study import Objective, Study, StudyError
from iotune.study.tune import Tuning
from tests.study.test_tune import SPEC, Landscape, measured_store, true_best

TARGET = {"transfer_size": 256 * 1024}


def seconds_of(trial) -> float:
    """The landscape's time of a trial's configuration, with 3% noise fixed by its (key, repeat)."""
    from iotune.records import BenchmarkSpec

    runner = Landscape()
    digest = hashlib.sha256(f"{trial.config_key}/{trial.repeat}".encode()).digest()
    runner.random.gauss = lambda *_: random.Random(digest).gauss(0, 1)
    return runner.run(BenchmarkSpec.from_dict(trial.benchmark), None).phases[0].seconds


class FakeWorkers:
    """``n`` workers that share the study's queue: at every call, they claim pending trials until ``n`` run,
    then one or two of the running trials (drawn with ``seed``) finish.  Records what was in flight each time."""

    def __init__(self, store, study: str, n: int, seed: int = 0, stop_after: int | None = None):
        self.store, self.study, self.n = store, study, n
        self.random = random.Random(seed)
        self.stop_after = stop_after
        self.calls = 0
        self.in_flight: list[list[str]] = []

    def __call__(self) -> None:
        self.calls += 1
        if self.stop_after is not None and self.calls > self.stop_after:
            raise KeyboardInterrupt
        queued = [t for t in self.store.trials(self.study) if t.state in ("PENDING", "RUNNING")]
        self.in_flight.append([t.config_key for t in queued])
        running = [t for t in queued if t.state == "RUNNING"]
        while len(running) < self.n:
            trial = self.store.claim(self.study, f"fake-{len(running)}")
            if trial is None:
                break
            running.append(trial)
        for _ in range(min(len(running), self.random.choice((1, 1, 2)))):
            trial = running.pop(self.random.randrange(len(running)))
            seconds = seconds_of(trial)
            phase = PhaseResult("write", 2**24, seconds, 0.0, seconds, 0.0, 1)
            self.store.finish_trial(trial.id, Measurement("COMPLETE", [phase], wall_seconds=seconds),
                                    owner=trial.owner)


def parallel_tuner(store, budget, workers, queue, **options):
    """The search with ``workers`` runs in flight (the race, which may end a tuning before its budget, apart)."""
    study = Study.open(store, "landscape")
    options.setdefault("race", False)
    return Tuning(study, None, TARGET, budget, objective=Objective("time"), workers=workers, on_wait=queue,
                 poll_s=0.0, **options)


def target_trials(store):
    trials = [t for t in store.trials("landscape") if t.config["transfer_size"] == TARGET["transfer_size"]]
    return sorted(trials, key=lambda t: t.seq)


def empty_store(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    Study.create(store, "landscape", SPEC)
    return store


@pytest.mark.parametrize("make_store", [measured_store, empty_store], ids=["with-prior", "without-prior"])
def test_three_runs_stay_in_flight_never_twice_the_same_and_the_budget_is_spent_exactly(tmp_path, make_store):
    with make_store(tmp_path) as store:
        queue = FakeWorkers(store, "landscape", 3)
        result = parallel_tuner(store, 12, 3, queue).run()
        found = target_trials(store)
    assert max(len(keys) for keys in queue.in_flight) == 3
    assert all(len(set(keys)) == len(keys) for keys in queue.in_flight)  # no candidate twice at once
    assert len(found) == 12 and {t.state for t in found} == {"COMPLETE"}
    assert len({(t.config_key, t.repeat) for t in found}) == 12
    assert result.runs == 12 and [s.run for s in result.steps] == list(range(1, 13))
    assert found[0].config_key == result.default.configuration.key  # the baseline is queued first
    measured = {t.config_key: seconds_of(t) for t in found}
    assert result.best.configuration.key == min(measured, key=measured.get)


@pytest.mark.slow
def test_with_a_prior_three_workers_find_what_one_finds(tmp_path):
    optimum, times = true_best(TARGET["transfer_size"])
    with measured_store(tmp_path) as store:
        result = parallel_tuner(store, 9, 3, FakeWorkers(store, "landscape", 3)).run()
    assert times[result.best.configuration.key] <= 1.05 * optimum


@pytest.mark.slow
def test_the_same_outcomes_give_the_same_proposals(tmp_path):
    runs = []
    for attempt in range(2):
        (tmp_path / str(attempt)).mkdir()
        with measured_store(tmp_path / str(attempt)) as store:
            parallel_tuner(store, 10, 3, FakeWorkers(store, "landscape", 3, seed=5)).run()
            runs.append([(t.config_key, t.repeat) for t in target_trials(store)])
    assert runs[0] == runs[1] and len(runs[0]) == 10


@pytest.mark.slow
def test_a_tuning_left_mid_way_resumes_without_queueing_again_what_was_in_flight(tmp_path):
    with measured_store(tmp_path) as store:
        with pytest.raises(KeyboardInterrupt):
            parallel_tuner(store, 12, 3, FakeWorkers(store, "landscape", 3, stop_after=4)).run()
        left = {t.id: (t.config_key, t.repeat) for t in target_trials(store) if t.state in ("PENDING", "RUNNING")}
        assert len(left) == 3
        assert store.get_study("landscape").controller is None  # the lease was given back
        result = parallel_tuner(store, 12, 3, FakeWorkers(store, "landscape", 3)).run()
        found = target_trials(store)
    assert len(found) == 12 and {t.state for t in found} == {"COMPLETE"}
    assert {t.id: (t.config_key, t.repeat) for t in found if t.id in left} == left  # finished, not re-queued
    assert len({(t.config_key, t.repeat) for t in found}) == 12
    assert result.runs == 12 and sum("before this tuner" in s.reason for s in result.steps) == 3


def test_a_tuning_is_refused_while_a_live_controller_holds_the_study(tmp_path):
    with measured_store(tmp_path) as store:
        study = Study.open(store, "landscape")
        assert store.acquire_controller(study.id, "elsewhere_0123456789ab_1_2_3") is None  # another host: alive
        with pytest.raises(StudyError, match="is being run by elsewhere"):
            parallel_tuner(store, 5, 2, FakeWorkers(store, "landscape", 2)).run()
        assert target_trials(store) == []


def test_a_race_with_three_runs_in_flight_never_overspends_nor_runs_a_run_twice(tmp_path):
    with measured_store(tmp_path) as store:
        queue = FakeWorkers(store, "landscape", 3)
        result = parallel_tuner(store, 12, 3, queue, race=True).run()
        found = target_trials(store)
    assert len(found) <= 12 and {t.state for t in found} == {"COMPLETE"}
    assert len({(t.config_key, t.repeat) for t in found}) == len(found)
    assert result.race_runs > 0
