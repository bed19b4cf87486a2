"""Racing to a decision: a tuning's last runs re-run the incumbent, a contender and the baseline interleaved, its
gain comes from those confirmation runs, paired by round so that a drifting load cancels."""

import math
import random

import pytest

from iotune.records import Measurement, PhaseResult
from iotune.study import Objective, Study, Worker
from iotune.study.campaign import ROUNDS_KEY
from iotune.study.tune import Tuning
from tests.study.test_tune import Landscape, measured_store, true_best

TARGET = {"transfer_size": 256 * 1024}


class DriftingLandscape(Landscape):
    """The landscape with 15% noise a run, under a load that triples the time of every run for ``period`` runs
    and then falls again (a shared machine); ``smooth``: a load that rises and falls between 1x and 3x over
    ``period`` runs instead."""

    def __init__(self, seed: int = 1, noise: float = 0.15, period: int = 5, smooth: bool = False):
        super().__init__(seed=seed)
        self.noise, self.period, self.count, self.smooth = noise, period, 0, smooth

    def run(self, spec, scratch):
        quiet = super().run(spec, scratch)
        self.count += 1
        if self.smooth:
            load = 2.0 + math.sin(2 * math.pi * self.count / self.period)
        else:
            load = 3.0 if (self.count // self.period) % 2 else 1.0
        seconds = quiet.phases[0].seconds * load * math.exp(self.noise * self.random.gauss(0, 1))
        return Measurement("COMPLETE", [PhaseResult("write", spec.aggregate_bytes, seconds, 0, seconds, 0, 1)],
                           wall_seconds=seconds)


def tuning(store, tmp_path, budget, runner, **options):
    study = Study.open(store, "landscape")
    return Tuning(study, Worker(study, runner, tmp_path), TARGET, budget, objective=Objective("time"), **options)


def true_gain():
    optimum, times = true_best(TARGET["transfer_size"])
    default = next(t for key, t in times.items() if key == default_key())
    return default, times


def default_key():
    from tests.study.test_tune import SPEC

    return SPEC.space.configuration(dict(TARGET)).key


def test_the_race_interleaves_the_racers_and_its_runs_count_in_the_budget(tmp_path):
    with measured_store(tmp_path) as store:
        result = tuning(store, tmp_path, 16, DriftingLandscape()).run()
        rounds = store.get_study("landscape").settings[ROUNDS_KEY]
    raced = [step for step in result.steps if step.reason.startswith("race round")]
    assert result.runs <= 16 and raced and result.race_runs == len(raced)
    assert len(rounds) == len(raced)
    by_round: dict[int, list[str]] = {}
    for step in raced:
        by_round.setdefault(int(step.reason.split()[2].rstrip(":")), []).append(step.configuration.key)
    for keys in by_round.values():
        assert len(keys) == len(set(keys))  # each racer once a round
    assert any(step.configuration.key == default_key() for step in raced)  # the baseline races


def test_paired_rounds_decide_the_gain_under_a_drifting_load(tmp_path):
    default, times = true_gain()
    with measured_store(tmp_path) as store:
        result = tuning(store, tmp_path, 20, DriftingLandscape(seed=3, noise=0.1, period=16, smooth=True)).run()
    truth = default / times[result.best.configuration.key]
    assert result.confirmed and result.race_rounds >= 2
    assert result.gain_low <= truth <= result.gain_high
    assert result.decided and result.gain_low > 1
    assert result.gain_high / result.gain_low < 3


def test_a_tuning_killed_mid_race_goes_on_with_the_same_race(tmp_path):
    stop_at = 12

    def interrupt(step, _):
        if step.run == stop_at:
            raise KeyboardInterrupt

    with measured_store(tmp_path) as store:
        with pytest.raises(KeyboardInterrupt):
            tuning(store, tmp_path, 18, DriftingLandscape(seed=4), on_step=interrupt).run()
        before = dict(store.get_study("landscape").settings[ROUNDS_KEY])
        result = tuning(store, tmp_path, 18, DriftingLandscape(seed=5)).run()
        after = store.get_study("landscape").settings[ROUNDS_KEY]
    assert before and all(after[run] == played for run, played in before.items())  # no stored round rewritten
    assert result.runs <= 18 and result.confirmed
    raced = [step for step in result.steps if step.reason.startswith("race round")]
    assert len(after) == len(before) + len(raced)


def test_no_race_below_its_smallest_budget_and_the_answer_says_unconfirmed(tmp_path):
    with measured_store(tmp_path) as store:
        result = tuning(store, tmp_path, 4, DriftingLandscape()).run()
    assert result.race_runs == 0 and not result.confirmed


def test_precision_asks_for_more_race_runs_and_says_how_many_more_it_needs(tmp_path):
    with measured_store(tmp_path) as store:
        loose = tuning(store, tmp_path, 12, DriftingLandscape(seed=6), precision=0.01).run()
    assert loose.runs == 12  # a 1% gain cannot be had in 12 runs at 15% noise: the race runs to the end
    assert loose.more_runs_needed is not None and loose.more_runs_needed > 0
    assert loose.gain_high / loose.gain_low > 1.0201


def test_an_unseeded_drift_does_not_make_the_race_claim_more_than_it_holds(tmp_path):
    """Coverage over a few seeds: the stated 95% gain interval holds the true gain of the declared best."""
    default, times = true_gain()
    covered = 0
    seeds = range(6)
    for seed in seeds:
        path = tmp_path / str(seed)
        path.mkdir()
        with measured_store(path) as store:
            result = tuning(store, path, 14, DriftingLandscape(seed=10 + seed, period=random.Random(seed).randint(2, 6))
                            ).run()
        truth = default / times[result.best.configuration.key]
        if result.gain_low is None:  # the default itself declared best: no gain stated, and truly none
            covered += result.best.configuration == result.default.configuration and truth == 1.0
        else:
            covered += result.gain_low <= truth <= result.gain_high
    assert covered >= len(seeds) - 1


def test_every_run_records_the_load_it_was_measured_under(tmp_path):
    with measured_store(tmp_path) as store:
        tuning(store, tmp_path, 3, DriftingLandscape(), race=False).run()
        trials = [t for t in store.trials("landscape") if t.state == "COMPLETE"]
    conditions = [t.extra.get("conditions") or {} for t in trials]
    assert all(isinstance(c.get("load_before"), float) and c.get("cores") for c in conditions)


class DefaultFastest(Landscape):
    """Every configuration twice as slow as the default (automatic, 1 node, 1 MiB buffers), 5% noise."""

    def run(self, spec, scratch):
        default = (spec.hints["romio_cb_write"], spec.hints["cb_nodes"], spec.hints["cb_buffer_size"]) == \
            ("automatic", "1", str(2**20))
        seconds = (1.0 if default else 2.0) * math.exp(0.05 * self.random.gauss(0, 1))
        return Measurement("COMPLETE", [PhaseResult("write", spec.aggregate_bytes, seconds, 0, seconds, 0, 1)],
                           wall_seconds=seconds)


def test_when_the_default_is_the_best_no_gain_is_stated_and_it_is_said(tmp_path):
    with measured_store(tmp_path) as store:
        result = tuning(store, tmp_path, 10, DefaultFastest(seed=1)).run()
    assert result.best.configuration == result.default.configuration
    assert result.gain == 1.0 and result.gain_low is None and result.gain_high is None
    assert any("the default configuration is the best" in note for note in result.notes)


def test_a_baseline_leading_after_the_contender_rounds_does_not_end_the_race():
    """The best of the tuned racers keeps racing the baseline when the baseline leads: after two rounds a
    near-tie (the demo's 0.061, 0.067 against 0.059, 0.072) is not a decision."""
    from iotune.samplers.race import Race

    race = Race(12, baseline=0, precision=None)
    for index, value in ((0, 0.072), (1, 0.060), (2, 0.113)):
        race.observe(index, value)
    values = {0: [0.061, 0.067, 0.064, 0.066], 1: [0.059, 0.072, 0.063, 0.065]}
    played: list[tuple[int, int]] = []
    while len(race.runs) < 12 and (planned := race.next(remaining=12 - len(race.runs), searching=False)):
        index, round_, _ = planned
        race.observe(index, values[index][round_ - 1] if round_ <= 4 else 0.065)
        played.append((index, round_))
    rounds = max(r for _, r in played)
    assert rounds >= 3  # it went on past the two rounds where the baseline led by 2 %
    assert {i for i, r in played if r == 3} == {0, 1}  # the incumbent and the baseline raced on
    assert len(race.runs) <= 12


def test_the_runs_a_decision_needs_count_the_degrees_of_freedom_its_rounds_will_have():
    """A noise measured in two rounds has 1-2 degrees of freedom; the rounds a decision needs are counted at the
    degrees of freedom those rounds themselves bring (paper 003's t at n - 1), not at today's t(2) = 4.3."""
    from iotune.variability.confidence import Noise
    from iotune.variability.estimate import runs_needed

    noise, half = Noise(0.35, 2.0, "two rounds"), math.log(1.2)
    at_today = runs_needed(noise, half)
    projected = runs_needed(noise, half, racers=2)

    def width(rounds):
        dof = max(noise.dof, rounds - 1)
        return Noise(noise.spread, dof, "").quantile() * noise.spread * math.sqrt(2 / rounds)

    assert width(projected) <= half < width(projected - 1)  # the fewest rounds that are enough
    assert at_today == math.ceil(2 * (noise.quantile() * 0.35 / half) ** 2)  # unchanged without racers
    assert projected < at_today / 3


def test_a_race_that_the_budget_ends_undecided_says_so_and_how_many_runs_would_decide(tmp_path):
    """At budget 8 the race has 2 rounds and a decision takes at least 3: the answer says it is undecided and
    which budget would decide at the noise measured; that budget continues the same tuning into more rounds."""
    with measured_store(tmp_path) as store:
        result = tuning(store, tmp_path, 8, DriftingLandscape(seed=2)).run()
        assert result.confirmed and result.race_rounds == 2 and not result.decided
        assert result.more_runs_to_decide is not None and result.more_runs_to_decide >= 2  # a third round at least
        assert result.more_runs_needed >= result.more_runs_to_decide  # and within ±20 % takes more
        wanted = result.runs + result.more_runs_to_decide
        [note] = [n for n in result.notes if n.startswith("undecided:")]
        assert f"--budget {wanted} continues this tuning" in note and "2 round(s)" in note
        precise = f"about {result.more_runs_needed} more (--budget {result.runs + result.more_runs_needed}) to know it"
        assert result.more_runs_needed == result.more_runs_to_decide or f"{precise} within ±20%" in note
        more = tuning(store, tmp_path, wanted, DriftingLandscape(seed=3)).run()
    assert more.runs > result.runs and more.race_rounds > 2


class DefaultAhead(Landscape):
    """The default (automatic, 1 node, 1 MiB buffers) 5 % faster than every other configuration, 20 % noise."""

    def run(self, spec, scratch):
        default = (spec.hints["romio_cb_write"], spec.hints["cb_nodes"], spec.hints["cb_buffer_size"]) == \
            ("automatic", "1", str(2**20))
        seconds = (1.0 if default else 1.05) * math.exp(0.2 * self.random.gauss(0, 1))
        return Measurement("COMPLETE", [PhaseResult("write", spec.aggregate_bytes, seconds, 0, seconds, 0, 1)],
                           wall_seconds=seconds)


def test_a_default_kept_undecided_says_it_was_not_shown_better(tmp_path):
    """The default leading a budget-8 race by a few percent is not a decision: the answer keeps it and says that
    its runs cannot tell it from the tuned racer, and how many runs would."""
    kept = []
    for seed in range(8):
        path = tmp_path / str(seed)
        path.mkdir()
        with measured_store(path) as store:
            result = tuning(store, path, 8, DefaultAhead(seed=seed)).run()
        if result.best.configuration == result.default.configuration:
            kept.append(result)
    assert kept  # the default is the fastest: some tunings keep it
    for result in kept:
        assert result.more_runs_to_decide and result.more_runs_to_decide >= 2
        [note] = [n for n in result.notes if n.startswith("undecided:")]
        assert "the default led" in note and f"--budget {result.runs + result.more_runs_to_decide}" in note
        assert len(result.tied) >= 2 and result.tied[1].describe() in note


class Flat(Landscape):
    """Every configuration alike, 25 % noise a run: no decision is within reach of any budget."""

    def run(self, spec, scratch):
        seconds = math.exp(0.25 * self.random.gauss(0, 1))
        return Measurement("COMPLETE", [PhaseResult("write", spec.aggregate_bytes, seconds, 0, seconds, 0, 1)],
                           wall_seconds=seconds)


def test_without_a_budget_a_tuning_runs_on_to_what_its_decision_needs(tmp_path):
    """No budget: 8 runs, then continued (the same race) to the budget its decision needs at the noise measured,
    re-estimated after each continuation, while within AUTO_MAX_RUNS."""
    from iotune.study.tune import AUTO_FIRST_BUDGET, AUTO_MAX_RUNS, tune_to_decision

    with measured_store(tmp_path) as store:
        runner = DriftingLandscape(seed=2)
        budgets: list[int] = []
        told: list[tuple[int, int]] = []

        def start(runs):
            budgets.append(runs)
            return tuning(store, tmp_path, runs, runner)

        result = tune_to_decision(start, None, lambda so_far, wanted: told.append((so_far.runs, wanted)))
    assert budgets[0] == AUTO_FIRST_BUDGET and len(budgets) >= 2  # undecided at 8 (2 rounds), so continued
    assert [wanted for _, wanted in told] == budgets[1:]
    assert all(wanted > runs for runs, wanted in told) and max(budgets) <= AUTO_MAX_RUNS
    assert result.runs <= max(budgets) and result.race_rounds > 2
    assert [step.run for step in result.steps] == list(range(1, result.runs + 1))  # the whole history
    # it ends decided, or with the decision beyond AUTO_MAX_RUNS, said so
    beyond = [n for n in result.notes if n.startswith("without --budget")]
    assert result.decided or (beyond and result.runs + result.more_runs_to_decide > AUTO_MAX_RUNS)


def test_without_a_budget_a_decision_out_of_reach_stops_within_its_most_runs_and_says_why(tmp_path):
    """A flat space: what the runs measure of a gain shrinks as they grow, the runs a decision needs grow past
    AUTO_MAX_RUNS, and the tuning stops there undecided, saying how many it would need."""
    from iotune.study.tune import AUTO_FIRST_BUDGET, AUTO_MAX_RUNS, tune_to_decision

    with measured_store(tmp_path) as store:
        runner = Flat(seed=3)
        result = tune_to_decision(lambda runs: tuning(store, tmp_path, runs, runner), None)
    (tmp_path / "given").mkdir()
    with measured_store(tmp_path / "given") as store:
        given = tune_to_decision(lambda runs: tuning(store, tmp_path / "given", runs, Flat(seed=3)), 10)
    assert AUTO_FIRST_BUDGET <= result.runs <= AUTO_MAX_RUNS and not result.decided
    [note] = [n for n in result.notes if n.startswith("without --budget")]
    assert result.runs + result.more_runs_to_decide > AUTO_MAX_RUNS
    assert str(result.runs + result.more_runs_to_decide) in note
    assert given.runs == 10 and not any(n.startswith("without --budget") for n in given.notes)  # a budget is kept


def test_the_api_without_a_budget_runs_on_to_a_decision_as_the_command_does(tmp_path):
    """``Study.tune()`` takes no budget as ``iotune tune`` takes no ``--budget``: the same continuation, run for run."""
    import iotune
    from iotune.study.tune import AUTO_FIRST_BUDGET, tune_to_decision

    (tmp_path / "api").mkdir()
    with measured_store(tmp_path / "api"):
        pass
    with iotune.load_study("landscape", storage=tmp_path / "api" / "db.sqlite") as study:
        by_api = study.tune(workload=TARGET, runner=DriftingLandscape(seed=2), scratch=tmp_path / "api")
    runner = DriftingLandscape(seed=2)
    with measured_store(tmp_path) as store:
        by_function = tune_to_decision(lambda runs: tuning(store, tmp_path, runs, runner), None)
    assert by_api.runs > AUTO_FIRST_BUDGET and by_api.runs == by_function.runs
    assert [s.configuration.key for s in by_api.steps] == [s.configuration.key for s in by_function.steps]
    assert (by_api.gain_low, by_api.gain_high) == (by_function.gain_low, by_function.gain_high)


def test_a_race_ends_for_its_precision_only_after_enough_rounds_to_know_the_noise(tmp_path):
    """A narrow interval after 3 rounds rests on a noise measured with 2 degrees of freedom, small by luck as
    often as not: a race decided that early runs on to MIN_PRECISE_ROUNDS rounds before it ends for precision."""
    from iotune.samplers.race import MIN_DECIDING_ROUNDS, MIN_PRECISE_ROUNDS

    with measured_store(tmp_path) as store:
        result = tuning(store, tmp_path, 40, DriftingLandscape(seed=7, noise=0.01, period=1000)).run()
    assert result.decided and result.runs < 40  # settled before the budget ended
    assert MIN_DECIDING_ROUNDS < MIN_PRECISE_ROUNDS == result.race_rounds
