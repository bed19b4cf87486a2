"""Racing to a decision: the last runs of a tuning re-run the incumbent, a close contender and the baseline,
interleaved, until the gain is decided (as irace's races and SMAC's intensification spend runs).

When the runs left in the budget fall to the race's ``reserve`` (``RESERVE_SHARE`` of it), or the search has
nothing left worth running, the race starts with the *racers*: the incumbent (the best so far), the
configuration its runs cannot yet tell from it (at most ``MAX_CONTENDERS``, and only with
``CONTENDER_RESERVE`` race runs) and the baseline.  Each *round* runs every racer once, in an order drawn at
random for the round, so that a load drifting over the race moves every racer alike and cancels in their
paired ratios (:mod:`iotune.variability.estimate`).  After each round from the second: a contender slower
than the best beyond the noise leaves, and after ``CONTENDER_ROUNDS`` rounds only the best of the tuned racers
(the lead, even when the baseline leads it) and the baseline race on; from ``MIN_DECIDING_ROUNDS`` rounds
the race ends when the gain over the baseline is decided (its interval excludes 1), no contender is left, and
the gain is known to within ``precision`` (by default ``DEFAULT_PRECISION``: a gain decided "between 1.1x and
2.6x" is not yet one to act on, and the runs are in the budget anyway) after at least ``MIN_PRECISE_ROUNDS``
rounds; else it runs until the budget ends.

The race keeps no state but the runs and their rounds (the study's setting ``race_rounds``, by
"<config key>#<repeat>"), so a tuning killed mid-race and run again goes on with the same racers.
"""

from __future__ import annotations

import math

from iotune.variability.confidence import CONFIDENCE, MIN_DOF
from iotune.variability.estimate import MIN_RACE_ROUNDS, Estimate, Run, estimate, runs_needed

MAX_CONTENDERS = 1
"""Contenders raced beside the incumbent and the baseline (each costs a run per round)."""
CONTENDER_ROUNDS = 2
"""Rounds a contender races before the best of the racers is picked and only it and the baseline race on."""
MIN_DECIDING_ROUNDS = 3
"""Rounds a race runs before it may end as decided."""
MIN_PRECISE_ROUNDS = 5
"""Rounds a race runs before it may end as known to within its precision.  A narrow interval after 3 rounds (2
degrees of freedom) is mostly a noise that happened to be measured small: ending a race on it stopped the races
whose noise was underestimated, and their intervals missed (live, 2 KiB quiet: 3 misses of 32, all of them
races ended at round 3-4 on a 1.09-1.18x wide interval; none of the 19 that ran on)."""
CONTENDER_RESERVE = 12
"""Race runs needed before a contender races too: its CONTENDER_ROUNDS rounds of three, then three of two."""
RESERVE_SHARE = 0.6
"""Share of the budget kept for the race (at budget 20: 8 runs of search, 12 of race)."""
MIN_BUDGET = 6
"""Smallest budget that races (below it the search takes every run and the answer says it is unconfirmed)."""
DEFAULT_PRECISION = 0.2
"""The gain's relative half-width a race runs for when none is asked: ±20 %, an interval at most 1.44x wide."""


def reserve_for(budget: int | None) -> int:
    """Runs of ``budget`` kept for the race."""
    if budget is None or budget < MIN_BUDGET:
        return 0
    return int(math.floor(RESERVE_SHARE * budget))


class Race:
    """The race of one tuning (module docstring); ``baseline`` the candidate index gains are stated against
    (None: none measured), ``elsewhere`` the store's spread of other workloads' repeats, ``rounds`` the stored
    rounds of runs by (candidate index, its run number), ``precision`` the gain's wanted relative half-width."""

    def __init__(self, budget: int | None, *, baseline: int | None, elsewhere: tuple[float, int] = (0.0, 0),
                 rounds: dict[tuple[int, int], int] | None = None, precision: float | None = DEFAULT_PRECISION,
                 confidence: float = CONFIDENCE, reserve: int | None = None):
        self.budget = budget
        self.reserve = reserve_for(budget) if reserve is None else reserve
        self.baseline = baseline
        self.elsewhere = elsewhere
        self.precision = precision
        self.confidence = confidence
        self.rounds: dict[tuple[int, int], int] = dict(rounds or {})
        self.runs: list[Run] = []
        self._count: dict[int, int] = {}
        self.racers: list[int] = []
        self.round = 0
        self.pending: list[int] = []
        self.done = False
        self.outcome = ""
        self.started_at: int | None = None
        self.planned: int | None = None

    # ------------------------------------------------------------------ what the runs say

    def observe(self, index: int, value: float | None) -> int | None:
        """A run of candidate ``index`` was told; returns its round (None: a search run)."""
        number = self._count.get(index, 0)
        self._count[index] = number + 1
        played = self.rounds.get((index, number))
        self.runs.append(Run(str(index), value, played))
        if played is not None:
            self.round = max(self.round, played)
            if self.started_at is None:
                self.started_at = len(self.runs) - 1
        return played

    def count(self, index: int) -> int:
        """Runs of candidate ``index`` told so far."""
        return self._count.get(index, 0)

    @property
    def started(self) -> bool:
        return self.started_at is not None

    def estimate(self) -> Estimate:
        baseline = None if self.baseline is None else str(self.baseline)
        return estimate(self.runs, baseline=baseline, elsewhere=self.elsewhere, confidence=self.confidence)

    # ------------------------------------------------------------------ what to run next

    def next(self, remaining: int | None, searching: bool) -> tuple[int, int, str] | None:
        """The next race run as (candidate index, round, reason); None while the search goes on or when the race
        is over (``done``).  ``remaining``: runs left in the budget; ``searching``: the search still has runs
        worth making."""
        if self.done:
            return None
        if not self.started:
            if remaining is None or (remaining > self.reserve and searching) or not self._start():
                return None
        elif not self.racers:
            self._resume()
        if not self.pending:
            if not self._next_round():
                return None
        index = self.pending.pop(0)
        self.rounds[(index, self._count.get(index, 0))] = self.round
        return index, self.round, self._reason(index)

    def _start(self) -> bool:
        current = self.estimate()
        if current.best is None:
            return False
        incumbent = int(current.best)
        contenders = [int(k) for k in current.tied[1:] if int(k) != self.baseline][:MAX_CONTENDERS]
        if not contenders and current.runner_up is not None and not current.known:
            contenders = [int(current.runner_up)] if int(current.runner_up) != self.baseline else []
        if self.reserve < CONTENDER_RESERVE:
            contenders = []  # too few runs to race a contender and still leave the gain enough rounds
        racers = [incumbent, *contenders]
        if self.baseline is not None and str(self.baseline) in current.means and self.baseline not in racers:
            racers.append(self.baseline)
        if len(racers) < 2 and current.runner_up is not None:
            racers.append(int(current.runner_up))
        if len(racers) < 2:
            return False
        self.racers = racers
        self.started_at = len(self.runs)
        if current.gain is not None and current.gain.value > 1:
            self.planned = runs_needed(current.noise, self._wanted_half_width(current.gain.value),
                                       self.confidence, racers=len(racers)) * len(racers)
        return True

    def _next_round(self) -> bool:
        """Start the next round (after dropping contenders the last ones separated); False when decided."""
        if self.round >= MIN_RACE_ROUNDS:
            current = self.estimate()
            tuned = [index for index in self.racers if index != self.baseline]
            # the lead: the best of the racers that are not the baseline (the baseline itself may lead: then its
            # gain over the lead is what the rounds left decide, never a reason to stop racing the lead)
            lead = min(tuned, key=lambda index: self._relative(current, index)) if tuned else self.racers[0]
            # a contender leaves once slower beyond the noise, and after CONTENDER_ROUNDS in any case
            slower = {index for index in tuned if index != lead
                      and ((ratio := current.ratios.get(str(index))) is not None and ratio.low > 1.0
                           or self.round >= CONTENDER_ROUNDS)}
            self.racers = [lead] + [index for index in self.racers if index != lead and index not in slower]
            if len(self.racers) < 2 or self._settled(current):
                self.done = True
                return False
        self.round += 1
        self.pending = self._ordered()
        return True

    @staticmethod
    def _relative(current: Estimate, index: int) -> float:
        """Racer ``index``'s mean over the best's (1 for the best itself; unknown: last)."""
        if str(index) == current.best:
            return 1.0
        ratio = current.ratios.get(str(index))
        return math.inf if ratio is None else ratio.value

    def _resume(self) -> None:
        """After a restart mid-race: the racers are those of the last two rounds stored, the current round's
        runs not made yet are pending."""
        recent = {int(run.config) for run in self.runs if run.round is not None and run.round >= self.round - 1}
        best = self.estimate().best
        first = [int(best)] if best is not None and int(best) in recent else []
        self.racers = first + sorted(recent - set(first))
        played = {int(run.config) for run in self.runs if run.round == self.round}
        self.pending = [index for index in self._ordered() if index not in played]

    def _ordered(self) -> list[int]:
        """The racers in this round's order: random, seeded by the round (a resumed race draws the same), so that
        no load that comes and goes with a period can stay in step with the order (a fixed rotation A B, B A, ...
        was fooled by a load on every other pair of runs)."""
        import random

        order = sorted(self.racers)
        random.Random(f"race round {self.round}").shuffle(order)
        return order

    def _settled(self, current: Estimate) -> bool:
        """Whether the race has decided: every other racer separated from the best, the gain's interval on one
        side of 1 (or the baseline itself best and ahead), and narrow enough for ``precision`` after at least
        ``MIN_PRECISE_ROUNDS`` rounds."""
        if current.best is None or not current.confirmed or current.paired_dof < MIN_DOF \
                or self.round < MIN_DECIDING_ROUNDS:
            return False  # too few rounds yet to know the paired noise from the race itself
        others = [str(i) for i in self.racers if str(i) != current.best]
        if any(current.ratios.get(k) is None or current.ratios[k].low <= 1.0 for k in others):
            return False
        if self.precision is not None and current.gain is not None and current.best != current.baseline:
            half = math.log(current.gain.high / current.gain.low) / 2
            if half > math.log1p(self.precision) or self.round < MIN_PRECISE_ROUNDS:
                return False
        self.outcome = "decided"
        return True

    def _wanted_half_width(self, gain: float) -> float:
        wanted = math.log(gain) if gain > 1 else math.inf
        if self.precision is not None:
            wanted = min(wanted, math.log1p(self.precision))
        return wanted

    def more_needed(self, current: Estimate, precision: bool = True) -> int | None:
        """Runs more the race would need for its decision (and, with ``precision``, its precision) at the noise
        measured so far, and at least ``MIN_DECIDING_ROUNDS`` rounds in all; None when that is had or nothing can be
        said.  When the baseline leads, the decision is whether the closest tuned racer is slower: runs to
        separate the two."""
        if current.gain is None or current.best is None or self.outcome:
            return None
        noise = current.paired_noise or current.noise
        racers = max(2, len(self.racers))
        if current.best == current.baseline:
            tuned = [int(k) for k in current.racers if int(k) != self.baseline]
            ratios = [current.ratios[str(i)] for i in (self.racers or tuned) if i != self.baseline
                      and str(i) in current.ratios]
            if not ratios or min(r.value for r in ratios) <= 1.0:
                return None
            closest = min(ratios, key=lambda r: r.value)
            if closest.low > 1.0:
                return None  # the baseline is ahead beyond the noise: decided
            wanted, done = math.log(closest.value), closest.runs
        else:
            wide = precision and self.precision is not None and \
                math.log(current.gain.high / current.gain.low) / 2 > math.log1p(self.precision)
            if current.decided and not wide:
                return None
            wanted = self._wanted_half_width(current.gain.value) if precision else \
                math.log(current.gain.value) if current.gain.value > 1 else math.inf
            done = current.gain.runs
        rounds = max(MIN_DECIDING_ROUNDS, runs_needed(noise, wanted, self.confidence, racers, racers=racers))
        return max(0, rounds - done) * racers

    def _reason(self, index: int) -> str:
        role = "the baseline" if index == self.baseline else \
            "the incumbent" if self.racers and index == self.racers[0] else "a close contender"
        return (f"race round {self.round}: {role} run again beside the other {len(self.racers) - 1} racer(s), "
                "interleaved, to decide with paired runs")


__all__ = ["CONTENDER_RESERVE", "CONTENDER_ROUNDS", "DEFAULT_PRECISION", "MAX_CONTENDERS", "MIN_BUDGET",
           "MIN_PRECISE_ROUNDS", "RESERVE_SHARE", "Race", "reserve_for"]
