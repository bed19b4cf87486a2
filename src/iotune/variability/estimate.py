"""One estimate of a workload's measured configurations: the best, its mean, the gain over a baseline, the
configurations tied with it, each with its interval.  ``results``, ``recommend``, ``tune``, ``run``, the report,
the demo and :class:`iotune.Study` all call :func:`estimate`, so the same runs give the same numbers everywhere.

A configuration's central value is the geometric mean of its runs (the noise is multiplicative: intervals are
symmetric in log units, :mod:`iotune.variability.confidence`).

**Raced runs.** ``iotune tune`` ends with a race (:mod:`iotune.samplers.race`): the incumbent, a close
contender and the baseline run again in *rounds*, interleaved (A B A B), so that a load that drifts over
minutes moves every racer of a round alike.  Runs tagged with their round are compared *paired*: the ratio of
two racers is the geometric mean of their per-round ratios, and its noise is the residual of the additive
model log value = configuration + round (a randomised complete block design), from which the rounds' drift
is gone.  The best of a race is the racer still racing in its last round with the lowest effect in that
model (a contender the race dropped is out), and its mean and gain come from its raced runs only: they are
*confirmation runs*, not the search runs that made it the incumbent (the lowest of a few noisy search runs is
picked because it ran lucky: stated from them, a gain is too high).
The Sidak correction then counts the racers it was picked from, not every configuration measured.

**Unraced runs** (a bench campaign, a tuning without a race) are compared unpaired, as
:mod:`iotune.variability.confidence` says, the pick corrected for all measured configurations.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field

from iotune.variability.confidence import (
    CONFIDENCE,
    MIN_DOF,
    PRIOR_SPREAD,
    Interval,
    Noise,
    mean_interval,
    noise_from,
    ratio_interval,
    workload_spread,
)

MIN_RACE_ROUNDS = 2
"""Rounds two configurations must share before they are compared paired."""


@dataclass(frozen=True)
class Run:
    """One run of a configuration: its value (seconds, or any positive objective; None: failed) and the race
    round it ran in (None: not raced)."""

    config: str
    value: float | None
    round: int | None = None


@dataclass
class Estimate:
    """What a workload's runs say (module docstring); intervals at ``confidence``, keys are configurations'.

    ``ranked``: every configuration with a successful run, the best first, then by geometric mean;
    ``means``: each one's geometric mean over all its runs; ``ratios``: each other's mean over the best's
    (paired where both raced), with its interval; ``tied``: the best and those whose ratio holds 1 (empty when
    the noise is unknown); ``separated``: True (ahead of every other), False (tied), None (unknown, or nothing
    to compare); ``confirmed``: the best's mean and the gain come from raced runs only."""

    noise: Noise
    known: bool
    paired_noise: Noise | None = None
    ranked: list[str] = field(default_factory=list)
    means: dict[str, float] = field(default_factory=dict)
    runs: dict[str, int] = field(default_factory=dict)
    best: str | None = None
    best_mean: Interval | None = None
    baseline: str | None = None
    gain: Interval | None = None
    ratios: dict[str, Interval] = field(default_factory=dict)
    tied: list[str] = field(default_factory=list)
    separated: bool | None = None
    racers: list[str] = field(default_factory=list)
    rounds: int = 0
    paired_dof: int = 0
    confirmed: bool = False
    failed: set[str] = field(default_factory=set)

    @property
    def runner_up(self) -> str | None:
        return self.ranked[1] if len(self.ranked) > 1 else None

    @property
    def decided(self) -> bool:
        """Whether the gain over the baseline is known to be above 1 (or below: the baseline is slower)."""
        return self.gain is not None and (self.gain.low > 1.0 or self.gain.high < 1.0) and self.best != self.baseline


def geometric_mean(values: Iterable[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def estimate(runs: Iterable[Run], *, baseline: str | None = None, elsewhere: tuple[float, int] = (0.0, 0),
             confidence: float = CONFIDENCE, pick_from: Iterable[str] | None = None) -> Estimate:
    """The estimate of one workload's ``runs`` (module docstring).

    ``baseline``: the configuration a gain is stated against (None: no gain); ``elsewhere``: the spread of
    other workloads' repeats (:func:`iotune.variability.confidence.spread_of_workloads`); ``pick_from``: the
    configurations the best may be (None: every one that never failed; one that failed a run is never
    picked unless nothing else succeeded)."""
    runs = list(runs)
    values: dict[str, list[float]] = {}
    failed: set[str] = set()
    for run in runs:
        if run.value is None or not (run.value > 0 and math.isfinite(run.value)):
            failed.add(run.config)
        else:
            values.setdefault(run.config, []).append(run.value)
    noise = noise_from(values.values(), elsewhere)
    out = Estimate(noise=noise, known=not noise.prior_only, failed=failed)
    if not values:
        return out
    out.means = {key: geometric_mean(v) for key, v in values.items()}
    out.runs = {key: len(v) for key, v in values.items()}
    allowed = set(values) if pick_from is None else set(pick_from) & set(values)
    eligible = [key for key in values if key in allowed and key not in failed] or \
        [key for key in values if key in allowed] or list(values)
    blocks = _raced(runs, eligible)
    if blocks:
        out.racers = sorted(blocks)
        out.rounds = len({r for rounds in blocks.values() for r in rounds})
        out.paired_noise, out.paired_dof, effects = _paired_noise(blocks, workload_spread(values.values()))
        # the best of the racers still in the race (a contender the race dropped is out, as the race decided: its
        # few rounds chose it, they cannot also confirm it), by its effect in log value = configuration + round, so
        # that a load that rose over the later rounds does not make an early racer look fast
        last = max(r for rounds in blocks.values() for r in rounds)
        finalists = [k for k in out.racers if k in eligible and last in blocks[k]] or \
            [k for k in out.racers if k in eligible]
        out.best = min(finalists, key=lambda k: (effects[k], k))
        out.confirmed = True
    else:
        out.best = min(eligible, key=lambda k: (out.means[k], k))
    out.ranked = [out.best] + sorted((k for k in values if k != out.best), key=lambda k: (out.means[k], k))
    out.baseline = baseline if baseline in values else None
    _compare(out, values, blocks, confidence)
    return out


def _raced(runs: list[Run], eligible: list[str]) -> dict[str, dict[int, float]]:
    """Configurations that ran in at least ``MIN_RACE_ROUNDS`` rounds shared with another racer: their raced
    values by round (geometric mean of a round's runs of one configuration); empty when fewer than two."""
    by_config: dict[str, dict[int, list[float]]] = {}
    for run in runs:
        if run.round is not None and run.value is not None and run.value > 0:
            by_config.setdefault(run.config, {}).setdefault(run.round, []).append(run.value)
    rounds = {key: {r: geometric_mean(v) for r, v in by_round.items()} for key, by_round in by_config.items()}
    shared = {key: r for key, r in rounds.items()
              if any(len(set(r) & set(other)) >= MIN_RACE_ROUNDS for k, other in rounds.items() if k != key)}
    if len(shared) < 2 or not any(key in eligible for key in shared):
        return {}
    return shared


def _paired_noise(blocks: dict[str, dict[int, float]], unpaired: tuple[float, int]
                  ) -> tuple[Noise, int, dict[str, float]]:
    """The residual noise of the additive model log value = configuration + round over the raced values (fitted
    by alternating means, exact for complete rounds), its own degrees of freedom, and each configuration's
    effect in it.  Below ``MIN_DOF`` of them the missing ones are filled with this workload's unpaired spread
    (``unpaired``: it holds the drift the rounds remove, so it can only be larger), else with the conservative
    prior.  Other workloads' repeats are
    not pooled in: measured under other loads, a quiet store made two rounds under a drifting load look
    decisive."""
    cells = [(key, r, math.log(v)) for key, by_round in blocks.items() for r, v in by_round.items()]
    configs = {key: 0.0 for key in blocks}
    rounds = {r: 0.0 for _, r, _ in cells}
    for _ in range(50):
        for key in configs:
            configs[key] = statistics.fmean(y - rounds[r] for k, r, y in cells if k == key)
        for r in rounds:
            rounds[r] = statistics.fmean(y - configs[k] for k, rr, y in cells if rr == r)
    squares = sum((y - configs[k] - rounds[r]) ** 2 for k, r, y in cells)
    dof = max(0, len(cells) - len(configs) - len(rounds) + 1)
    fill, source = (unpaired[0], "this workload's unpaired repeats") if unpaired[1] else \
        (PRIOR_SPREAD, f"a conservative prior of ±{PRIOR_SPREAD:.0%}")
    missing = max(0, MIN_DOF - dof)
    spread = math.sqrt((squares + fill**2 * missing) / (dof + missing))
    parts = [f"{dof} from the race's rounds"] + ([f"{missing} from {source}"] if missing else [])
    return Noise(spread, float(dof + missing), f"±{spread:.0%} a run, paired by round ({' + '.join(parts)} "
                 "degrees of freedom)"), dof, configs


def paired_ratio(numerator: dict[int, float], denominator: dict[int, float], noise: Noise,
                 confidence: float = CONFIDENCE, comparisons: int = 1) -> Interval:
    """numerator / denominator over their shared rounds: exp(mean of log ratios ± q s sqrt(2 / rounds))."""
    shared = sorted(set(numerator) & set(denominator))
    diffs = [math.log(numerator[r]) - math.log(denominator[r]) for r in shared]
    ratio = math.exp(statistics.fmean(diffs))
    half = noise.quantile(confidence, comparisons) * noise.spread * math.sqrt(2.0 / len(shared))
    return Interval(ratio, ratio * math.exp(-half), ratio * math.exp(half), len(shared))


def _compare(out: Estimate, values: dict[str, list[float]], blocks: dict[str, dict[int, float]],
             confidence: float) -> None:
    best = out.best
    assert best is not None
    measured = len(values)
    if blocks:
        # the baseline is not one of the configurations the best is picked from: when it comes out fastest
        # no gain is stated
        picked_from = sum(1 for key in blocks if key not in out.failed and key != out.baseline) or 1
        out.best_mean = mean_interval(list(blocks[best].values()), out.noise, confidence, picked_from)
    else:
        picked_from = measured
        out.best_mean = mean_interval(values[best], out.noise, confidence, picked_from)

    def ratio(other: str) -> Interval:
        paired = out.paired_noise
        if paired is not None and other in blocks and len(set(blocks[other]) & set(blocks[best])) >= MIN_RACE_ROUNDS:
            return paired_ratio(blocks[other], blocks[best], paired, confidence, picked_from)
        return ratio_interval(values[other], values[best], out.noise, confidence, measured)

    out.ratios = {key: ratio(key) for key in out.ranked[1:]}
    if out.baseline is not None:
        out.gain = ratio(out.baseline) if out.baseline != best else \
            Interval(1.0, 1.0, 1.0, out.runs[best])
    if not out.known and not blocks:
        out.tied, out.separated = [], None
        return
    out.tied = [best] + [key for key, interval in out.ratios.items() if interval.low <= 1.0]
    out.separated = None if measured == 1 else len(out.tied) == 1


LOAD_RATIO = 2.0
"""Median loads of two compared configurations' runs further apart than this are warned about."""


def load_note(best: list[float], baseline: list[float], confirmed: bool) -> str | None:
    """A warning when the best's runs and the baseline's were measured under very different loads (1-minute load
    averages of the host): their ratio may then be the load's.  None when paired by a race (the load cancels),
    unknown, or alike."""
    if confirmed or not best or not baseline:
        return None
    high, low = sorted((statistics.median(best), statistics.median(baseline)), reverse=True)
    if high <= LOAD_RATIO * max(low, 0.5):
        return None
    return (f"the best's runs were measured at a load of {statistics.median(best):.1f}, the default's at "
            f"{statistics.median(baseline):.1f} (median 1-minute load average): part of the gain may be the load's; "
            "runs interleaved under one load would tell (`iotune tune` races them)")


def runs_needed(noise: Noise, half_width: float, confidence: float = CONFIDENCE, comparisons: int = 1,
                racers: int | None = None) -> int:
    """Rounds (pairs of runs) for the log interval of a ratio to be within ± ``half_width`` (paper 003's
    repeats needed for an interval to converge, for a ratio: q s sqrt(2 / n) <= half_width).  q at the noise's
    degrees of freedom; with ``racers``, at those n complete rounds of that many racers would have, (n - 1)
    (racers - 1), when more (the race's own: a noise measured in 2 rounds has 1, and q at 1-2 degrees of freedom
    would ask for 4-30 times the rounds its spread needs)."""
    if half_width <= 0 or not math.isfinite(half_width):
        return 10**6

    def enough(rounds: int) -> bool:
        dof = noise.dof if racers is None else max(noise.dof, (rounds - 1) * (racers - 1))
        q = Noise(noise.spread, dof, noise.source).quantile(confidence, comparisons)
        return q * noise.spread * math.sqrt(2.0 / rounds) <= half_width

    low, high = MIN_RACE_ROUNDS, max(MIN_RACE_ROUNDS, min(10**6, math.ceil(
        2.0 * (noise.quantile(confidence, comparisons) * noise.spread / half_width) ** 2)))
    while low < high:  # enough() only turns true as the rounds grow; ``high`` (q at the noise's dof) is enough
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle + 1, high)
    return low


__all__ = ["LOAD_RATIO", "MIN_RACE_ROUNDS", "Estimate", "Run", "estimate", "geometric_mean", "load_note",
           "paired_ratio", "runs_needed"]
