"""Campaigns: planning, running into the store, resuming without losing or repeating work."""

from collections import Counter

import pytest

from iotune.analysis import best_per_workload
from iotune.spec.mapping import benchmark_spec, check_runnable
from iotune.bench.runner import BuiltinRunner
from iotune.records import Measurement
from iotune.campaign import Campaign, CampaignSettings, load_campaign, plan, schedule
from iotune.errors import IotuneError, SpaceError
from iotune.space import Space
from iotune.store import Store


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


def test_plan_is_deterministic_and_repeats_interleave(spec_file):
    space, settings = load_campaign(spec_file)
    first, second = plan(space, settings), plan(space, settings)
    assert [c.key for c in first] == [c.key for c in second]
    assert len(first) == 2 * (1 + 2)  # per transfer size: disable, automatic x cb_nodes 1/2
    order = schedule(first, 2)
    assert [r for _, r in order] == [0] * 6 + [1] * 6
    assert [c.key for c, _ in order[:6]] == [c.key for c, _ in order[6:]]


def test_benchmark_spec_applies_fields_hints_and_defaults(spec_file):
    space, settings = load_campaign(spec_file)
    configuration = space.configuration({"transfer_size": "64KiB", "romio_cb_write": "automatic", "cb_nodes": 2})
    spec = benchmark_spec(space, configuration, settings.benchmark)
    assert spec.transfer_size == 64 * 1024 and spec.block_size == 256 * 1024
    assert spec.api == "MPIIO" and spec.collective and spec.processes == 2
    assert spec.hints == {"romio_cb_write": "automatic", "cb_nodes": "2"}


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


def test_settings_are_validated():
    with pytest.raises(SpaceError, match="repeats"):
        CampaignSettings(repeats=0)
    with pytest.raises(SpaceError, match="design"):
        CampaignSettings(design="latin")
    with pytest.raises(SpaceError, match="unknown campaign setting"):
        CampaignSettings.from_dict({"repeat": 3})


@pytest.mark.requires_mpi
def test_campaign_measures_every_repeat_and_resumes_without_repeating(spec_file, tmp_path):
    space, settings = load_campaign(spec_file)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with Store(tmp_path / "db.sqlite") as store:
        runner = CountingRunner(BuiltinRunner(timeout=60))
        try:
            campaign = Campaign(store, "tiny", space, settings, runner, scratch)
            seen = []
            report = campaign.run(platform={"hostname": "test"}, on_trial=lambda c, r, m: seen.append((c.key, r)))
            assert report.completed == 12 and report.failed == 0
            assert Counter(seen) == Counter({(c.key, r): 1 for c, r in schedule(plan(space, settings), 2)})

            trials = store.trials(study="tiny")
            assert len(trials) == 12 and {t.state for t in trials} == {"COMPLETE"}
            for trial in trials:
                assert [p.phase for p in trial.phases] == ["write", "read"]
                assert trial.phases[0].bytes == 2 * 256 * 1024
                assert trial.hints_requested["romio_cb_write"] == trial.config["romio_cb_write"]
                assert trial.hints_in_effect.get("romio_cb_write") == trial.config["romio_cb_write"]
                assert trial.read_cache_mode in ("drop_caches", "fadvise_dontneed")
            assert list(scratch.iterdir()) == []

            again = Campaign(store, "tiny", space, settings, runner, scratch)
            with pytest.raises(IotuneError, match="already exists"):
                again.run()
            calls = len(runner.calls)
            resumed = again.run(resume=True)
            assert resumed.completed == 0 and resumed.already_done == 12 and len(runner.calls) == calls

            bests = best_per_workload(space, trials)
            assert len(bests) == 2 and all(b.configurations == 3 and b.best.n == 2 for b in bests)
        finally:
            runner.close()


@pytest.mark.requires_mpi
def test_failed_trials_are_stored_and_retried_only_when_asked(spec_file, tmp_path):
    space, settings = load_campaign(spec_file)

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
            report = Campaign(store, "tiny", space, settings, runner, tmp_path).run()
            assert report.failed == 1 and report.completed == 11
            failed = store.trials(study="tiny", state="FAILED")
            assert len(failed) == 1 and "status 3" in failed[0].error
            assert Campaign(store, "tiny", space, settings, runner, tmp_path).run(resume=True).completed == 0
            retried = Campaign(store, "tiny", space, settings, runner, tmp_path).run(resume=True, retry_failed=True)
            assert retried.completed == 1
            assert {t.state for t in store.trials(study="tiny")} == {"COMPLETE"}
        finally:
            runner.close()


def test_resume_with_a_changed_space_is_refused(spec_file, tmp_path):
    space, settings = load_campaign(spec_file)
    with Store(tmp_path / "db.sqlite") as store:
        store.create_study("tiny", space.to_yaml(), "0" * 16, settings.to_dict())
        with pytest.raises(IotuneError, match="different space"):
            Campaign(store, "tiny", space, settings, runner=None, scratch=tmp_path).run(resume=True)


def test_adaptive_settings_are_validated():
    assert CampaignSettings(adaptive={}).adaptive == {"rel_half_width": 0.05, "confidence": 0.95, "min_repeats": 3}
    with pytest.raises(SpaceError, match="rel_half_width"):
        CampaignSettings(adaptive={"rel_half_width": 2})
    with pytest.raises(SpaceError, match="unknown adaptive"):
        CampaignSettings(adaptive={"width": 0.1})
    with pytest.raises(SpaceError, match="min_repeats"):
        CampaignSettings(adaptive={"min_repeats": 1})


class SteadyRunner:
    """A stand-in for storage whose times never vary for one configuration and vary a lot for another:
    what the adaptive rule decides is then known exactly (this is not a measurement)."""

    name = "steady"

    def __init__(self):
        self.calls = Counter()

    def run(self, spec, scratch):
        from iotune.records import PhaseResult

        self.calls[spec.transfer_size] += 1
        calls = self.calls[spec.transfer_size]
        noisy = spec.transfer_size == 64 * 1024
        seconds = 1.0 + (0.5 * (-1) ** calls if noisy else 0.001 * (calls % 2))
        return Measurement("COMPLETE", [PhaseResult("write", spec.aggregate_bytes, seconds, 0, seconds, 0, 1)],
                           wall_seconds=seconds)

    def close(self):
        pass


def test_adaptive_repeats_stop_precise_configurations_only(tmp_path):
    space = Space.from_text("""
name: adaptive
parameters:
  - {name: transfer_size, type: size, levels: [64KiB, 256KiB], role: workload, layer: application}
""")
    settings = CampaignSettings(repeats=10, adaptive={"rel_half_width": 0.05, "min_repeats": 3},
                                benchmark={"block_size": 256 * 1024})
    runner = SteadyRunner()
    with Store(tmp_path / "db.sqlite") as store:
        report = Campaign(store, "a", space, settings, runner, tmp_path).run()
        counts = Counter(t.config["transfer_size"] for t in store.trials(study="a"))
        assert counts == {64 * 1024: 10, 256 * 1024: 3}  # the steady one stops at min_repeats
        assert report.not_needed == 7 and report.completed == 13 and report.saved_seconds > 0
        resumed = Campaign(store, "a", space, settings, runner, tmp_path).run(resume=True)
        assert resumed.completed == 0 and resumed.not_needed == 7
