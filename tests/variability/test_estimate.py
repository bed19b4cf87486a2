"""The one estimate (issue 29): paired rounds cancel a drifting load, confirmation runs state the gain, and an
extra run never widens an interval by more than its own spread implies."""

import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from iotune.variability.confidence import PRIOR_SPREAD, estimate_noise, mean_interval, ratio_interval
from iotune.variability.estimate import Run, estimate, geometric_mean


def half_width(interval) -> float:
    return math.log(interval.high / interval.low) / 2


runs_of_a_config = st.lists(st.floats(min_value=0.01, max_value=100.0), min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(runs_of_a_config, min_size=1, max_size=5), st.integers(min_value=0, max_value=4),
       st.floats(min_value=0.0, max_value=1.0), st.booleans())
def test_an_extra_run_within_the_noise_never_widens_an_interval(groups, which, share, store):
    """A run whose log deviates from its configuration's mean by at most the current noise (``share`` of it; while
    the conservative prior fills in missing degrees of freedom, by at most that prior, whose place the run takes)
    leaves the interval of that mean, and of any ratio to it, as narrow or narrower: no cliff at few degrees of
    freedom."""
    which %= len(groups)
    others = [("other", [1.0, 1.3, 0.8])] if store else []
    before = estimate_noise(groups, others)
    mean = math.exp(sum(math.log(v) for v in groups[which]) / len(groups[which]))
    within = min(before.spread, PRIOR_SPREAD)
    extra = mean * math.exp(random.Random(len(groups)).choice((-1, 1)) * share * within)
    grown = [list(g) for g in groups]
    grown[which].append(extra)
    after = estimate_noise(grown, others)
    assert half_width(mean_interval(grown[which], after)) <= half_width(mean_interval(groups[which], before)) + 1e-9
    other = (which + 1) % len(groups)
    if other != which:
        assert half_width(ratio_interval(grown[other], grown[which], after)) <= \
            half_width(ratio_interval(groups[other], groups[which], before)) + 1e-9


def test_paired_rounds_cancel_a_load_that_drifts_between_rounds():
    rng = random.Random(1)
    runs = []
    for r in range(6):
        load = 3.0 ** (r % 2)  # every other round three times as slow
        runs += [Run("base", 2.0 * load * math.exp(rng.gauss(0, 0.05)), r),
                 Run("best", 1.0 * load * math.exp(rng.gauss(0, 0.05)), r)]
    paired = estimate(runs, baseline="base")
    unpaired = estimate([Run(r.config, r.value) for r in runs], baseline="base")
    assert paired.confirmed and not unpaired.confirmed
    assert paired.gain.low <= 2.0 <= paired.gain.high and paired.decided
    assert half_width(paired.gain) < half_width(unpaired.gain) / 4
    assert paired.paired_noise.spread < 0.1 < unpaired.noise.spread


def test_the_gain_comes_from_the_race_not_from_the_lucky_run_that_chose_the_best():
    # a search run made "best" look 4x faster; its raced runs say 1.5x
    runs = [Run("base", 3.0), Run("best", 0.75), Run("other", 2.9)]
    runs += [Run("base", 3.0 * f, r) for r, f in enumerate((1.0, 1.1, 0.95, 1.05))]
    runs += [Run("best", 2.0 * f, r) for r, f in enumerate((1.02, 1.08, 0.97, 1.03))]
    found = estimate(runs, baseline="base")
    assert found.best == "best" and found.confirmed
    assert 1.4 < found.gain.value < 1.6 and found.best_mean.runs == 4
    assert abs(found.best_mean.value - geometric_mean([2.04, 2.16, 1.94, 2.06])) < 1e-9


def test_unraced_runs_are_compared_unpaired_with_the_pick_corrected_for_every_configuration():
    runs = [Run(k, v) for k, vs in {"a": [1.0, 1.1], "b": [1.5, 1.4], "c": [3.0, 3.3]}.items() for v in vs]
    found = estimate(runs, baseline="c")
    assert found.best == "a" and not found.confirmed and found.ranked == ["a", "b", "c"]
    expected = ratio_interval([3.0, 3.3], [1.0, 1.1], found.noise, comparisons=3)
    assert found.gain == expected


def test_a_configuration_that_failed_a_run_is_not_picked_while_another_succeeded():
    runs = [Run("a", 1.0), Run("a", None), Run("b", 2.0), Run("b", 2.1)]
    assert estimate(runs).best == "b"


def test_runs_compared_under_very_different_loads_are_warned_about_unless_raced():
    from iotune.variability.estimate import load_note

    assert "load of 8.0" in load_note([8.0, 7.5, 8.5], [1.0, 1.2], confirmed=False)
    assert load_note([1.1, 1.0], [1.3, 0.9], confirmed=False) is None
    assert load_note([8.0], [1.0], confirmed=True) is None  # paired rounds: the load cancels
    assert load_note([], [1.0], confirmed=False) is None
