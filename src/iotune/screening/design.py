"""The screening design: a foldover Plackett-Burman matrix mapped to configurations (paper 000, Sec. 4.1).

Row i of the 2N'-run foldover matrix sets each factor to its low (-1) or high
(+1) value and every other parameter to its default.  A row that breaks a
constraint of the space or gives a benchmark that cannot run is not repaired:
effects computed without it would be biased, so the design is refused with
the row, the rule it breaks and, when a greedy search finds one, other
``screening: levels:`` that make every row valid.

A parameter made inactive by its ``when:`` rule in some rows is left inactive
(None) there; its effect then mixes its own influence with that of the
parameters its rule reads (the rows where it is "high" are partly rows where
it does not exist), so read such effects with care.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from iotune.design import foldover, plackett_burman
from iotune.errors import SpaceError
from iotune.screening.errors import ScreeningError
from iotune.screening.factors import Factor
from iotune.space import Configuration, Space
from iotune.spec.mapping import benchmark_spec

DESIGN_NAME = "plackett-burman-foldover"
SEARCH_LIMIT = 50_000
"""Most row validations the search for valid low/high levels may spend."""


@dataclass(frozen=True)
class ScreeningDesign:
    """Factors, the foldover PB matrix (2N' x factors, +1/-1) and one configuration per matrix row.

    Rows may repeat a configuration (small designs repeat sign patterns, and
    inactive parameters merge rows); such rows share its measurements.
    """

    space: Space
    factors: tuple[Factor, ...]
    matrix: np.ndarray
    rows: tuple[Configuration, ...]

    @property
    def names(self) -> list[str]:
        return [factor.name for factor in self.factors]

    def configurations(self) -> list[Configuration]:
        """Distinct configurations in row order (first occurrence)."""
        return list({row.key: row for row in self.rows}.values())

    def run_order(self, seed: int = 0) -> list[Configuration]:
        """Distinct configurations in a random order fixed by ``seed``, so that drift does not follow the design."""
        configurations = self.configurations()
        random.Random(seed).shuffle(configurations)
        return configurations

    def to_dict(self) -> dict[str, Any]:
        """What a study records to recompute its ranking from its trials: design name, runs, factors."""
        return {"design": DESIGN_NAME, "runs": int(self.matrix.shape[0]),
                "factors": [{"name": f.name, "low": f.low, "high": f.high} for f in self.factors]}


def build_design(space: Space, factors: list[Factor], benchmark: Mapping | None = None) -> ScreeningDesign:
    """The foldover PB design of ``factors`` over ``space``; refuses it if any row is invalid.

    With ``benchmark`` (the campaign's benchmark defaults) a row must also give
    a runnable built-in benchmark; without it only the space's rules count.
    """
    chosen = tuple(factors)
    matrix = foldover(plackett_burman(len(chosen)))
    rows, invalid = _rows(space, chosen, matrix, benchmark)
    if invalid:
        index, text, reason = invalid[0]
        raise ScreeningError(
            f"screening row {index + 1} of {len(matrix)} ({text}) is invalid: {reason} "
            f"({len(invalid)} invalid row(s) in all); " + _advice(space, chosen, matrix, benchmark, len(invalid))
        )
    return ScreeningDesign(space, chosen, matrix, tuple(rows))


def _rows(space, factors, matrix, benchmark, stop_after: int | None = None):
    rows, invalid = [], []
    for index, signs in enumerate(matrix):
        mapping = {factor.name: factor.value(sign) for factor, sign in zip(factors, signs, strict=True)}
        try:
            configuration = space.configuration(mapping)
            if benchmark is not None:
                benchmark_spec(space, configuration, benchmark)
            rows.append(configuration)
        except SpaceError as error:
            text = " ".join(f"{name}={space.parameter(name).format(value)}" for name, value in mapping.items())
            invalid.append((index, text, str(error)))
            if stop_after is not None and len(invalid) >= stop_after:
                break
    return rows, invalid


def _advice(space, factors, matrix, benchmark, bad: int) -> str:
    found = _search_levels(space, list(factors), matrix, benchmark, bad)
    if found is None:
        return ("no other low/high levels make every row valid; loosen the rule, or screen fewer parameters "
                "(--system-only, or give them one level)")
    changed = {f.name: f for f, old in zip(found, factors, strict=True) if f != old}
    text = ", ".join(f"{name}: [{space.parameter(name).format(f.low)}, {space.parameter(name).format(f.high)}]"
                     for name, f in changed.items())
    return f"these levels make every row valid: add to the spec  screening: {{levels: {{{text}}}}}"


def _search_levels(space, factors: list[Factor], matrix, benchmark, bad: int) -> list[Factor] | None:
    """Greedy: change one factor's pair, else two factors' pairs (widest pairs first), while invalid rows drop."""
    budget = [SEARCH_LIMIT]

    def moves(current):
        for j, factor in enumerate(current):
            for pair in _pairs(space.parameter(factor.name)):
                yield {j: pair}
        for j in range(len(current)):
            for k in range(j + 1, len(current)):
                for pj in _pairs(space.parameter(current[j].name)):
                    for pk in _pairs(space.parameter(current[k].name)):
                        yield {j: pj, k: pk}

    while bad:
        for move in moves(factors):
            candidate = [Factor(f.name, *move[j]) if j in move else f for j, f in enumerate(factors)]
            budget[0] -= len(matrix)
            if budget[0] < 0:
                return None
            invalid = len(_rows(space, candidate, matrix, benchmark, stop_after=bad)[1])
            if invalid < bad:
                factors, bad = candidate, invalid
                break
        else:
            return None
    return factors


def _pairs(parameter) -> list[tuple[Any, Any]]:
    levels = parameter.levels
    pairs = [(a, b) for a in range(len(levels)) for b in range(a + 1, len(levels))]
    pairs.sort(key=lambda ab: (ab[0] - ab[1], ab[0]))
    return [(levels[a], levels[b]) for a, b in pairs]
