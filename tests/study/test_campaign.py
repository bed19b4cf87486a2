"""Campaigns: a sampler's proposals queued, measured by a worker into the store, resumed without repeating."""

from collections import Counter
from dataclasses import replace

import pytest

from iotune.analysis import best_per_workload
from iotune.bench.runner import BuiltinRunner
from iotune.errors import IotuneError, SpaceError
from iotune.records import Measurement, PhaseResult
from iotune.samplers import Sampler
from iotune.space import Space
from iotune.spec import CampaignSpec, load_spec
from iotune.spec.mapping import benchmark_spec, check_runnable
from iotune.store import Store
from iotune.study.measure import prepare


class CountingRunner:
    """The real runner, counting what it was asked to run."""

    name = "builtin"

    def __init__(self, inner):
        self.inner = inner
        self.calls = []

    def run(self, spec, scratch):
        self.calls.append(spec)
        return self.inner.run(spec, scratch)

    def close(self):
        self.inner.close()


def run(store, spec, runner, scratch, study="tiny", **options):
    campaign = prepare(store, spec, study, runner, scratch, platform={"hostname": "test"}, **options)
    try:
        return campaign.run()
    finally:
        campaign.worker.close()


def test_full_design_is_deterministic_and_every_valid_configuration(spec_file):
    from iotune.samplers import make_sampler

    spec = load_spec(spec_file)
    first, second = (make_sampler("full", spec.space, seed=0).ask(100) for _ in range(2))
    assert [c.key for c in first] == [c.key for c in second]
    assert len(first) == 2 * (1 + 2)  # per transfer size: disable, automatic x cb_nodes 1/2


def test_benchmark_spec_applies_fields_hints_and_defaults(spec_file):
    spec = load_spec(spec_file)
    configuration = spec.space.configuration({"transfer_size": "64KiB", "romio_cb_write": "automatic", "cb_nodes": 2})
    run_spec = benchmark_spec(spec.space, configuration, spec.benchmark)
    assert run_spec.transfer_size == 64 * 1024 and run_spec.block_size == 256 * 1024
    assert run_spec.api == "MPIIO" and run_spec.collective and run_spec.processes == 2
    assert run_spec.hints == {"romio_cb_write": "automatic", "cb_nodes": "2"}


def test_hint_active_for_posix_is_refused():
    space = Space.from_text("""
name: bad
parameters:
  - {name: api, type: categorical, levels: [POSIX, MPIIO], role: workload, layer: application}
  - {name: romio_cb_write, type: categorical, levels: [enable, disable], role: system, layer: mpiio}
""")
    configuration = space.configuration({"api": "POSIX", "romio_cb_write": "enable"})
    with pytest.raises(SpaceError, match="api=POSIX"):
        benchmark_spec(space, configuration)


def test_parameter_the_benchmark_cannot_apply_is_refused():
    space = Space.from_text("""
name: bad
parameters:
  - {name: file_system, type: categorical, levels: [ext4, xfs], role: system, layer: filesystem}
""")
    with pytest.raises(SpaceError, match="file_system.*no effect"):
        check_runnable(space)


def test_impossible_size_combination_is_refused():
    space = Space.from_text("""
name: bad
parameters:
  - {name: transfer_size, type: size, levels: [4MiB], role: workload, layer: application}
""")
    with pytest.raises(SpaceError, match="must be a positive multiple of transfer_size"):
        benchmark_spec(space, space.configuration({}), {"block_size": 1024 * 1024})


@pytest.mark.requires_mpi
def test_campaign_measures_every_repeat_and_resumes_without_repeating(spec_file, tmp_path):
    spec = load_spec(spec_file)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with Store(tmp_path / "db.sqlite") as store:
        runner = CountingRunner(BuiltinRunner(timeout=60))
        try:
            report = run(store, spec, runner, scratch)
            assert report.completed == 12 and report.failed == 0 and report.configurations == 6
            trials = store.trials(study="tiny")
            assert len(trials) == 12 and {t.state for t in trials} == {"COMPLETE"}
            assert Counter((t.config_key, t.repeat) for t in trials).most_common(1)[0][1] == 1
            # repeats interleave: every configuration once before any is measured again
            order = sorted(trials, key=lambda t: t.seq)
            assert [t.repeat for t in order] == [0] * 6 + [1] * 6
            for trial in trials:
                assert [p.phase for p in trial.phases] == ["write", "read"]
                assert trial.phases[0].bytes == 2 * 256 * 1024
                assert trial.hints_requested["romio_cb_write"] == trial.config["romio_cb_write"]
                assert trial.hints_in_effect.get("romio_cb_write") == trial.config["romio_cb_write"]
                assert trial.read_cache_mode in ("drop_caches", "fadvise_dontneed")
                assert trial.owner and trial.platform_id is not None
            assert list(scratch.iterdir()) == []

            with pytest.raises(IotuneError, match="already exists"):
                run(store, spec, runner, scratch)
            calls = len(runner.calls)
            resumed = run(store, spec, runner, scratch, resume=True)
            assert resumed.completed == 0 and resumed.already_done == 12 and len(runner.calls) == calls

            bests = best_per_workload(spec.space, trials)
            assert len(bests) == 2 and all(b.configurations == 3 and b.best.n == 2 for b in bests)
        finally:
            runner.close()


@pytest.mark.requires_mpi
def test_failed_trials_are_stored_and_retried_only_when_asked(spec_file, tmp_path):
    spec = load_spec(spec_file)

    class FailingOnce:
        name = "builtin"

        def __init__(self):
            self.inner = BuiltinRunner(timeout=60)
            self.failed = False

        def run(self, spec, scratch):
            if not self.failed:
                self.failed = True
                return Measurement.failed("rank 1 exited with status 3")
            return self.inner.run(spec, scratch)

        def close(self):
            self.inner.close()

    runner = FailingOnce()
    with Store(tmp_path / "db.sqlite") as store:
        try:
            report = run(store, spec, runner, tmp_path)
            assert report.failed == 1 and report.completed == 11
            failed = store.trials(study="tiny", state="FAILED")
            assert len(failed) == 1 and "status 3" in failed[0].error
            assert run(store, spec, runner, tmp_path, resume=True).completed == 0
            retried = run(store, spec, runner, tmp_path, resume=True, retry_failed=True)
            assert retried.completed == 1
            assert {t.state for t in store.trials(study="tiny")} == {"COMPLETE"}
        finally:
            runner.close()


def test_resume_with_another_space_or_benchmark_is_refused_but_new_settings_are_fine(spec_file, tmp_path):
    spec = load_spec(spec_file)
    with Store(tmp_path / "db.sqlite") as store:
        run(store, replace(spec, campaign=replace(spec.campaign, budget=1, repeats=1)), SteadyRunner(), tmp_path)
        other_space = CampaignSpec.from_text(spec_file.read_text().replace("levels: [64KiB, 256KiB]", "levels: [64KiB, 128KiB]"))
        with pytest.raises(IotuneError, match="space differ"):
            run(store, other_space, SteadyRunner(), tmp_path, resume=True)
        other_benchmark = CampaignSpec.from_text(spec_file.read_text().replace("processes: 2", "processes: 3"))
        with pytest.raises(IotuneError, match="benchmark differ"):
            run(store, other_benchmark, SteadyRunner(), tmp_path, resume=True)
        more = run(store, spec.with_campaign(repeats=3), SteadyRunner(), tmp_path, resume=True)
        assert more.completed == 6 * 3 - 1


def test_a_second_controller_is_refused_while_the_first_lives(spec_file, tmp_path):
    from iotune.study import Study

    spec = load_spec(spec_file)
    with Store(tmp_path / "db.sqlite") as store:
        study = Study.create(store, "tiny", spec)
        assert store.acquire_controller(study.id, "otherhost:1:boot:1") is None
        with pytest.raises(IotuneError, match="being run by otherhost"):
            run(store, spec, SteadyRunner(), tmp_path, resume=True)
        store.release_controller(study.id, "otherhost:1:boot:1")
        assert run(store, spec, SteadyRunner(), tmp_path, resume=True).completed == 12


class SteadyRunner:
    """A stand-in for storage whose times never vary for one configuration and vary a lot for another:
    what the adaptive rule decides is then known exactly (this is not a measurement)."""

    name = "steady"

    def __init__(self):
        self.calls = Counter()

    def run(self, spec, scratch):
        self.calls[spec.transfer_size] += 1
        calls = self.calls[spec.transfer_size]
        noisy = spec.transfer_size == 64 * 1024
        seconds = 1.0 + (0.5 * (-1) ** calls if noisy else 0.001 * (calls % 2))
        return Measurement("COMPLETE", [PhaseResult("write", spec.aggregate_bytes, seconds, 0, seconds, 0, 1)],
                           wall_seconds=seconds)

    def close(self):
        pass


def test_adaptive_repeats_stop_precise_configurations_only(tmp_path):
    spec = CampaignSpec.from_text("""
name: adaptive
parameters:
  - {name: transfer_size, type: size, levels: [64KiB, 256KiB], role: workload, layer: application}
benchmark: {block_size: 256KiB}
campaign: {repeats: 10, adaptive: {rel_half_width: 0.05, min_repeats: 3}}
""")
    runner = SteadyRunner()
    with Store(tmp_path / "db.sqlite") as store:
        report = run(store, spec, runner, tmp_path, study="a")
        counts = Counter(t.config["transfer_size"] for t in store.trials(study="a"))
        assert counts == {64 * 1024: 10, 256 * 1024: 3}  # the steady one stops at min_repeats
        assert report.not_needed == 7 and report.completed == 13 and report.saved_seconds > 0
        resumed = run(store, spec, runner, tmp_path, study="a", resume=True)
        assert resumed.completed == 0 and resumed.not_needed == 7



class Twice(Sampler):
    """A sampler that remeasures (not a search: a fixed plan) proposing each configuration of ``plan`` twice, one
    run per ask, from what it was told (its memory): what it heard, in order."""

    name = "twice"
    remeasures = True

    def __init__(self, space, plan):
        super().__init__(space, budget=2 * len(plan))
        self.plan = [c for c in plan for _ in range(2)]
        self.heard = []

    def ask(self, n=1):
        return self.plan[len(self.heard):len(self.heard) + 1]

    def _learn(self, configuration, outcome):
        self.heard.append((configuration.key, outcome.state, len(outcome.values)))

    def reason(self, configuration):
        return f"run {len(self.heard) + 1} of the plan"


class Stand:
    """A stand-in for storage (not a measurement): every run takes 1 s."""

    name = "stand"

    def run(self, spec, scratch):
        return Measurement("COMPLETE", [PhaseResult("write", 1 << 20, 1.0, 0.0, 1.0, 0.0, 1)], wall_seconds=1.0)

    def close(self):
        pass


def test_a_sampler_that_remeasures_gets_each_run_as_a_new_repeat_and_its_stored_runs_on_resuming(spec_file,
                                                                                                 tmp_path):
    from iotune.study import Campaign, Study, Worker

    spec = load_spec(spec_file)
    plan = list(spec.space.full_factorial())[:2]
    with Store(tmp_path / "db.sqlite") as store:
        study = Study.create(store, "tiny", spec)
        first = Twice(spec.space, plan[:1])
        Campaign(study, first, Worker(study, Stand(), tmp_path)).run()
        assert first.heard == [(plan[0].key, "COMPLETE", 1)] * 2  # the same configuration twice, each run alone
        assert sorted((t.config_key, t.repeat) for t in store.trials("tiny")) == [(plan[0].key, 0), (plan[0].key, 1)]
        again = Twice(spec.space, plan)
        campaign = Campaign(study, again, Worker(study, Stand(), tmp_path))
        assert campaign.expected_trials() == 2  # the budget less the runs it owns in the store
        report = campaign.run()
        assert again.heard[:2] == first.heard and len(again.heard) == 4  # the two stored runs told first
        runs = sorted((t.config_key, t.repeat) for t in store.trials("tiny"))
        assert runs == sorted([(plan[0].key, 0), (plan[0].key, 1), (plan[1].key, 0), (plan[1].key, 1)])
        assert report.completed == 2 and report.already_done == 2  # what was stored is not run again
        reasons = store.get_study("tiny").settings["tuning_reasons"]
        assert reasons[f"{plan[1].key}#1"] == "run 4 of the plan"


@pytest.mark.parametrize("shuffle", [True, False])
def test_each_round_runs_in_its_own_order_unless_shuffle_is_off(tmp_path, shuffle):
    """A testbed rebuilt every round gives the n-th file created the same inode, and CephFS places a file's objects
    by its inode: rounds in one order would repeat one placement instead of measuring its spread."""
    spec = CampaignSpec.from_text(f"""
name: rounds
parameters:
  - {{name: transfer_size, type: size, levels: [16KiB, 32KiB, 64KiB, 128KiB, 256KiB], role: workload,
     layer: application}}
benchmark: {{block_size: 256KiB}}
campaign: {{repeats: 4, shuffle: {str(shuffle).lower()}}}
""")
    with Store(tmp_path / "db.sqlite") as store:
        run(store, spec, SteadyRunner(), tmp_path, study="rounds")
        trials = sorted(store.trials(study="rounds"), key=lambda t: t.seq)
    orders = {tuple(t.config["transfer_size"] for t in trials if t.repeat == r) for r in range(4)}
    assert len(orders) == (4 if shuffle else 1)
