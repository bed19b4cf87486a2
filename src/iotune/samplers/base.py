"""The one contract for every way of choosing what to measure: ``ask`` proposes, ``tell`` learns.

A sampler proposes configurations of a :class:`~iotune.space.Space` (``ask``)
and is told what each one gave (``tell``: an :class:`Outcome`, lower value is
better).  It never touches the store: the loop that drives it
(:mod:`iotune.study`) answers a configuration already stored without measuring
it again, so a sampler rebuilt with the same seed and told the same outcomes
proposes the same configurations (same seed, same store: same proposals), and
a campaign resumed after a crash continues where it stopped.

A sampler never raises because runs failed, a configuration cannot be run, or
every value so far is missing: a FAILED or INVALID outcome is a penalised
value (``inf``) to it, and it goes on.

Most samplers propose configurations, each measured with the campaign's
repeats and told once (the mean of its repeats).  A sampler that sets
``remeasures`` proposes *runs* instead: each configuration it returns is one
more run of it, possibly of a configuration measured already (a noise-aware
tuner measures a close contender again), and ``tell`` gets that one run's
outcome.  The loop then tells it, before its first ``ask``, every stored run it
``owns`` (its memory, so that a tuning resumed continues from its runs and
spends its budget once).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar

from iotune.errors import IotuneError
from iotune.space import Configuration, Space

OUTCOME_STATES = ("COMPLETE", "FAILED", "INVALID")


class SamplerError(IotuneError, ValueError):
    """A sampler's name, options or budget are invalid, or ask/tell were called out of order."""


@dataclass(frozen=True)
class Outcome:
    """What measuring one configuration gave: the objective ``value`` (lower is better) over its repeats.

    ``state`` is COMPLETE (at least one repeat completed; ``values`` holds each
    completed repeat's objective, ``value`` their mean), FAILED (every repeat
    failed) or INVALID (the configuration cannot be run).
    """

    state: str
    value: float = math.inf
    values: tuple[float, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.state not in OUTCOME_STATES:
            raise SamplerError(f"outcome state must be one of {', '.join(OUTCOME_STATES)}, got {self.state!r}")

    @classmethod
    def of(cls, values) -> Outcome:
        """COMPLETE with the mean of ``values`` (finite numbers), or FAILED when there is none."""
        kept = tuple(float(v) for v in values if v is not None and math.isfinite(v))
        if not kept:
            return cls("FAILED")
        return cls("COMPLETE", sum(kept) / len(kept), kept)

    @property
    def penalised(self) -> float:
        """The value a search compares: ``value`` when COMPLETE, else ``inf``."""
        return self.value if self.state == "COMPLETE" and math.isfinite(self.value) else math.inf


class Sampler(ABC):
    """Base of every sampler.

    ``budget`` caps the distinct configurations proposed (None: as many as the
    sampler has); ``seed`` fixes every random choice.  ``batch`` says how many
    configurations the sampler likes to be asked for at once: ``None`` for a
    design (all of it, so that repeats interleave over the whole design), 1 for
    a sequential search.  Subclasses set ``name`` and implement :meth:`ask`.
    """

    # class defaults that a wrapper (ConstantLiar) or a sampler's options may set per instance
    name: str = "sampler"
    batch: int | None = 1
    description: str = ""
    remeasures: ClassVar[bool] = False
    """True: ``ask`` proposes runs (a configuration told already may come again), each told on its own."""

    def __init__(self, space: Space, *, seed: int = 0, budget: int | None = None):
        if not isinstance(space, Space):
            raise SamplerError(f"a sampler works over a Space, got {type(space).__name__}")
        if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 1):
            raise SamplerError(f"budget must be a whole number >= 1 or None, got {budget!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise SamplerError(f"seed must be a whole number >= 0, got {seed!r}")
        self.space = space
        self.seed = seed
        self.budget = budget
        self.proposed = 0
        self.told: dict[str, Outcome] = {}
        self.best: tuple[Configuration, Outcome] | None = None

    @property
    def remaining(self) -> int | None:
        """Proposals left in the budget (None: unbounded)."""
        return None if self.budget is None else max(0, self.budget - self.proposed)

    @abstractmethod
    def ask(self, n: int = 1) -> list[Configuration]:
        """Up to ``n`` configurations to measure next, ``[]`` when the sampler is done: never proposed before,
        or, for a sampler that ``remeasures``, each one more run of it, none of them still outstanding (it
        may be asked again before every run it proposed is told)."""

    def tell(self, configuration: Configuration, outcome: Outcome) -> None:
        """What ``configuration`` gave; a sampler that learns overrides :meth:`_learn`."""
        if not isinstance(outcome, Outcome):
            raise SamplerError(f"tell() takes an Outcome, got {type(outcome).__name__}")
        self.told[configuration.key] = outcome
        if outcome.state == "COMPLETE" and (self.best is None or outcome.penalised < self.best[1].penalised):
            self.best = (configuration, outcome)
        self._learn(configuration, outcome)

    def _learn(self, configuration: Configuration, outcome: Outcome) -> None:  # noqa: B027 (optional hook)
        """Hook for samplers that adapt to outcomes (default: nothing)."""

    def owns(self, configuration: Configuration) -> bool:
        """Whether a stored run of ``configuration`` is one of this sampler's (told on resuming, counted in its
        budget): any configuration of the space by default; a tuner of one workload owns that workload's."""
        return True

    def reason(self, configuration: Configuration) -> str:
        """Why the last ``ask`` proposed ``configuration``, stored with its run and shown ("": not said)."""
        return ""

    def _want(self, n: int) -> int:
        """How many of ``n`` asked-for configurations the budget still allows."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise SamplerError(f"ask() needs n >= 1, got {n!r}")
        return n if self.remaining is None else min(n, self.remaining)

    def _take(self, configurations: list[Configuration], n: int) -> list[Configuration]:
        """The first ``n`` of ``configurations`` that the budget allows; counts them as proposed."""
        chosen = configurations[:self._want(n)]
        self.proposed += len(chosen)
        return chosen

    def record(self) -> dict:
        """What a study stores about this sampler (name, seed, budget and the sampler's own choices)."""
        return {"sampler": self.name, "seed": self.seed, "budget": self.budget}
