"""Every way of choosing what to measure, behind one ask/tell interface over a :class:`~iotune.space.Space`.

Designs (``full``, ``random``, ``lhs``, ``list``), Plackett-Burman screening and
the guided collection and walk of paper 000 (``screening``, ``pb-collect``,
``pb-walk``), and paper 004's search heuristics (``nelder-mead``,
``annealing``, ``genetic``, ``pso``), and the transfer tuner (``transfer``: one
workload's runs, a configuration possibly run again).  :func:`make_sampler` builds one by name
from a campaign spec; :func:`optimize` drives one against a function (an
analytic model) without a store.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from iotune.samplers.annealing import SimulatedAnnealing
from iotune.samplers.base import Outcome, Sampler, SamplerError
from iotune.samplers.designs import DesignSampler, GridSampler, LatinHypercubeSampler, RandomSampler
from iotune.samplers.genetic import GeneticAlgorithm
from iotune.samplers.grid import Grid
from iotune.samplers.nelder_mead import NelderMead
from iotune.samplers.pso import ParticleSwarm
from iotune.samplers.screening import PBCollectSampler, PBWalkSampler, ScreeningSampler
from iotune.samplers.transfer import TransferSampler
from iotune.space import Configuration, Space

SAMPLERS: dict[str, type[Sampler]] = {
    cls.name: cls
    for cls in (GridSampler, RandomSampler, LatinHypercubeSampler, ScreeningSampler, PBCollectSampler,
                PBWalkSampler, NelderMead, SimulatedAnnealing, GeneticAlgorithm, ParticleSwarm, TransferSampler)
}
"""Sampler classes by their name in specs and on the command line (``list`` is built from Python only)."""
HEURISTICS = ("nelder-mead", "annealing", "genetic", "pso")


def make_sampler(name: str, space: Space, *, seed: int = 0, budget: int | None = None, options: dict | None = None,
                 spec=None) -> Sampler:
    """The sampler ``name`` over ``space``; ``options`` are its own keyword arguments (e.g. ``population``).

    ``spec`` (a :class:`~iotune.spec.CampaignSpec`) supplies what the
    Plackett-Burman samplers read from it: screening levels and the benchmark
    defaults that decide which design rows can run.
    """
    cls = SAMPLERS.get(name)
    if cls is None:
        from iotune.spec.fields import did_you_mean

        raise SamplerError(f"sampler must be one of {', '.join(SAMPLERS)}, got {name!r}{did_you_mean(name, SAMPLERS)}")
    accepted = {k for k in inspect.signature(cls.__init__).parameters if k not in ("self", "space", "seed", "budget")}
    options = dict(options or {})
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise SamplerError(f"sampler {name!r} takes no option {', '.join(unknown)}"
                           f" (its options: {', '.join(sorted(accepted)) or 'none'})")
    if spec is not None:
        context = {"levels": spec.screening.levels, "system_only": spec.screening.system_only,
                   "benchmark": spec.benchmark}
        for key, value in context.items():
            if key in accepted:
                options.setdefault(key, value)
    try:
        return cls(space, seed=seed, budget=budget, **options)
    except TypeError as exc:
        raise SamplerError(f"sampler {name!r}: {exc}") from None


@dataclass
class SearchResult:
    """Outcome of :func:`optimize`: best configuration and value, distinct evaluations, and the history."""

    best: Configuration | None
    best_value: float
    evaluations: int
    history: list[tuple[Configuration, float]] = field(default_factory=list)


def optimize(sampler: Sampler, evaluate: Callable[[Configuration], float]) -> SearchResult:
    """Ask, evaluate and tell until the sampler is done or its budget is spent; lower values are better.

    ``evaluate`` returns a value, or ``inf``/NaN for a configuration that
    failed; each distinct configuration is evaluated once (each proposal, for
    a sampler that ``remeasures``: a repeat is evaluated again).
    """
    if sampler.budget is None and Grid(sampler.space).size > 10**6:
        raise SamplerError("give the sampler a budget: the space has more than a million points")
    history: list[tuple[Configuration, float]] = []
    while batch := sampler.ask(sampler.batch or 1024):
        for configuration in batch:
            value = float(evaluate(configuration))
            ok = math.isfinite(value)
            sampler.tell(configuration, Outcome("COMPLETE", value, (value,)) if ok else Outcome("FAILED"))
            history.append((configuration, value))
    best = min(history, key=lambda item: item[1] if math.isfinite(item[1]) else math.inf, default=None)
    return SearchResult(None if best is None else best[0], math.inf if best is None else best[1], len(history),
                        history)


__all__ = ["HEURISTICS", "SAMPLERS", "DesignSampler", "GeneticAlgorithm", "GridSampler", "LatinHypercubeSampler",
           "NelderMead", "Outcome", "PBCollectSampler", "PBWalkSampler", "ParticleSwarm", "RandomSampler", "Sampler",
           "SamplerError", "ScreeningSampler", "SearchResult", "SimulatedAnnealing", "TransferSampler", "make_sampler",
           "optimize"]
