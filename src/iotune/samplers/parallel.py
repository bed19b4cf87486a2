"""N configurations at a time from a sampler that proposes one at a time: speculation with a constant liar.

The search heuristics (Nelder-Mead, annealing, genetic, PSO) and ``pb-walk``
ask for one configuration, wait for its outcome, and only then choose the next
(``batch = 1``).  With N workers, :class:`ConstantLiar` proposes N at a time:

- the *true* sampler is told real outcomes only, each for the configuration it
  asked for, in its own order: what it proposes is exactly what the sequential
  search proposes;
- the first configuration of a batch is the true sampler's next question; the
  others come from a replica of it (built by ``factory`` and told the same
  history, since a sampler cannot be copied) that is told a *lie* for every
  configuration still being measured and asked again: the constant liar of
  Ginsbourger, Le Riche and Carraro ("Kriging is well-suited to parallelize
  optimization", 2010), here for proposals only;
- when the true sampler later asks for a configuration that was measured
  speculatively, its real outcome is at hand and costs no run (a *hit*).  A
  speculative configuration the true sampler never asks for was measured off
  the sequential path: its run counts against the budget, its outcome is kept
  (in the store, in ``best``, and for the true sampler should it ask later).

Lies never reach the true sampler, so the search never learns a false value.
The proposals depend only on the seed, the budget, N, the lie and the outcomes
told (not on the order in which a batch's outcomes arrive, since the true
sampler is told only its own question): same seed, same store, same N: same
proposals.  Which samplers speculate well (measured in docs/benchmarks.md):
proposals that do not depend on the outcomes still pending are always hits:
a genetic generation (children are bred from the previous generation only), a
particle swarm iteration, Nelder-Mead's first simplex and its shrink steps, the
levels of one parameter in pb-walk.  Annealing's next candidate depends on
whether the last one was accepted: its speculation mostly misses.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable

from iotune.samplers.base import Outcome, Sampler, SamplerError
from iotune.space import Configuration

LIES = ("best", "mean", "worst")
MAX_ANSWERED = 2000
"""Proposals of the replica answered without a run (known or repeated) after which speculation stops."""


class ConstantLiar(Sampler):
    """Batches of ``workers`` configurations from the sequential sampler that ``factory()`` builds.

    ``factory`` must build the same sampler (same seed, budget and options)
    every time it is called.  ``lie`` is the value told for a configuration
    still being measured: the best finite value told so far ("best", CL-min),
    their mean, or the worst; FAILED while nothing has a value.
    """

    def __init__(self, factory: Callable[[], Sampler], workers: int, *, lie: str = "best"):
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise SamplerError(f"workers must be a whole number >= 1, got {workers!r}")
        if lie not in LIES:
            raise SamplerError(f"lie must be one of {', '.join(LIES)}, got {lie!r}")
        true = factory()
        super().__init__(true.space, seed=true.seed, budget=true.budget)
        self.factory = factory
        self.workers = workers
        self.lie = lie
        self.name = true.name
        self.description = true.description
        self.batch = workers
        self.speculated = 0
        self.hits = 0
        self._true = true
        self._history: list[tuple[Configuration, Outcome]] = []
        self._known: dict[str, Outcome] = {}
        self._speculative: set[str] = set()
        self._outstanding: set[str] = set()
        self._pending: Configuration | None = None
        self._done = False

    @property
    def inner(self) -> Sampler:
        """The true (sequential) sampler."""
        return self._true

    def ask(self, n: int = 1) -> list[Configuration]:
        want = self._want(n)
        if self._outstanding:
            raise SamplerError(f"{self.name}: tell() the outcomes of the last batch before asking again")
        if self._done or want == 0:
            return []
        first = self._advance()
        if first is None:
            self._done = True
            return []
        batch = [first] + (self._speculate(first, want - 1) if want > 1 else [])
        chosen = self._take(batch, n)
        self.speculated += len(chosen) - 1
        self._speculative.update(c.key for c in chosen[1:])
        self._outstanding.update(c.key for c in chosen)
        return chosen

    def tell(self, configuration: Configuration, outcome: Outcome) -> None:
        super().tell(configuration, outcome)
        self._known[configuration.key] = outcome
        self._outstanding.discard(configuration.key)
        if self._pending is not None and self._pending.key == configuration.key:
            self._pending = None
            self._tell_true(configuration, outcome)

    def _tell_true(self, configuration: Configuration, outcome: Outcome) -> None:
        self._true.tell(configuration, outcome)
        self._history.append((configuration, outcome))

    def _advance(self) -> Configuration | None:
        """The true sampler's next question whose outcome is unknown (answering known ones), or None when done."""
        while self._pending is None:
            asked = self._true.ask(1)
            if not asked:
                return None
            configuration = asked[0]
            known = self._known.get(configuration.key)
            if known is None:
                self._pending = configuration
            else:
                if configuration.key in self._speculative:
                    self.hits += 1
                    self._speculative.discard(configuration.key)
                self._tell_true(configuration, known)
        return self._pending

    def _replica(self, first: Configuration) -> Sampler | None:
        """A sampler in the true sampler's state, asked ``first`` already; None if it does not replay the same."""
        replica = self.factory()
        for configuration, outcome in self._history:
            asked = replica.ask(1)
            if not asked or asked[0].key != configuration.key:
                return None
            replica.tell(asked[0], outcome)
        asked = replica.ask(1)
        if not asked or asked[0].key != first.key:
            return None
        return replica

    def _speculate(self, first: Configuration, count: int) -> list[Configuration]:
        """Up to ``count`` more configurations the replica proposes when told lies for the pending ones."""
        replica = self._replica(first)
        if replica is None:
            return []
        lie = self._lie()
        replica.tell(first, lie)
        chosen: list[Configuration] = []
        seen = {first.key}
        answered = 0
        while len(chosen) < count and answered < MAX_ANSWERED:
            asked = replica.ask(1)
            if not asked:
                break
            configuration = asked[0]
            known = self._known.get(configuration.key)
            replica.tell(configuration, known if known is not None else lie)
            if known is not None or configuration.key in seen:
                answered += 1
                continue
            seen.add(configuration.key)
            chosen.append(configuration)
        return chosen

    def _lie(self) -> Outcome:
        values = [o.penalised for o in self._known.values() if math.isfinite(o.penalised)]
        if not values:
            return Outcome("FAILED")
        pool: dict[str, Callable[[list[float]], float]] = {"best": min, "mean": statistics.fmean, "worst": max}
        value = pool[self.lie](values)
        return Outcome("COMPLETE", value, (value,))

    def record(self) -> dict:
        return {**self._true.record(), "parallel": {"workers": self.workers, "lie": self.lie}}


def parallel(factory: Callable[[], Sampler], workers: int, *, lie: str = "best") -> Sampler:
    """The sampler ``factory()`` builds, wrapped in a :class:`ConstantLiar` when it proposes one at a time
    (``batch == 1``) and ``workers > 1``; designs (``batch`` None) already propose everything at once, and a
    sampler that ``remeasures`` (the transfer tuner) proposes its own batches: made with ``workers`` it is asked
    for that many runs, each told alone."""
    sampler = factory()
    if workers <= 1 or sampler.batch != 1 or sampler.remeasures:
        return sampler
    return ConstantLiar(factory, workers, lie=lie)
