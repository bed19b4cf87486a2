"""PB-guided data collection: vary the top-ranked parameters first (paper 000, end of Section 4.1).

"ACIC populates its training database by sampling the top-ranked parameters
first (adopting default settings for the other parameters), then gradually
expands training data collection to the lower-ranked dimensions."  Stage k is
the full factorial over the k top-ranked parameters with every other parameter
at its default; only what stage k - 1 did not hold is new (the k-th parameter
off its default).  Stages are taken whole while the budget allows; the stage
that does not fit is sampled at random (seeded) to fill the budget.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence

from iotune.errors import SpaceError
from iotune.screening.errors import ScreeningError
from iotune.space import Configuration, Space

ENUMERATE_LIMIT = 200_000
"""Stages with more new assignments than this are sampled by random draws instead of enumerated."""


def pb_guided_configurations(space: Space, ranking: Sequence[str], budget: int, seed: int = 0,
                             accept: Callable[[Configuration], bool] | None = None) -> list[Configuration]:
    """At most ``budget`` distinct valid configurations, the default one first, then stage 1, 2, ...

    ``ranking`` lists parameter names, most influential first (e.g.
    ``ScreenResult.ranking``); parameters it omits stay at their defaults.
    ``accept`` may reject further configurations (e.g. ones the benchmark
    cannot run).  Fewer than ``budget`` come back when the ranked parameters
    span fewer valid configurations.
    """
    if not isinstance(budget, int) or budget < 1:
        raise ScreeningError(f"the collection budget must be a whole number >= 1, got {budget!r}")
    parameters = [space.parameter(name) for name in ranking]
    rng = random.Random(seed)
    chosen: dict[str, Configuration] = {}

    def add(values: dict) -> None:
        try:
            configuration = space.configuration(values)
        except SpaceError:
            return
        if configuration.key not in chosen and (accept is None or accept(configuration)):
            chosen[configuration.key] = configuration

    add({})
    for k, parameter in enumerate(parameters):
        if len(chosen) >= budget:
            break
        before = parameters[:k]
        others = [level for level in parameter.levels if level != parameter.default]
        size = math.prod(len(p.levels) for p in before) * len(others)
        if size <= ENUMERATE_LIMIT:
            stage = [dict(zip([p.name for p in before], combo, strict=True), **{parameter.name: level})
                     for combo in itertools.product(*(p.levels for p in before)) for level in others]
            if size > budget - len(chosen):
                rng.shuffle(stage)
            for values in stage:
                if len(chosen) >= budget:
                    break
                add(values)
        else:
            for _ in range(100 * (budget - len(chosen))):
                if len(chosen) >= budget:
                    break
                values = {p.name: rng.choice(p.levels) for p in before}
                add({**values, parameter.name: rng.choice(others)})
    return list(chosen.values())[:budget]
