"""Screening factors: which parameters a Plackett-Burman screen varies, and their low/high values.

Paper 000, Section 4.1, step 2 and Table 3: each factor takes a low and a high
value, chosen far apart so that a real effect shows.  By default every
parameter with at least two levels is a factor (paper 000 screens its whole
15-D space, workload and system alike), its low value the first level and its
high value the last one: order each parameter's levels from low to high in the
spec.  A ``screening:`` section of the campaign YAML may override the pair
(read by :class:`iotune.spec.CampaignSpec`)::

    screening:
      levels:
        transfer_size: [64KiB, 4MiB]
        romio_cb_write: [disable, enable]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from iotune.screening.errors import ScreeningError
from iotune.space import Space


@dataclass(frozen=True)
class Factor:
    """One screened parameter and the values its -1 (low) and +1 (high) design entries stand for."""

    name: str
    low: Any
    high: Any

    def value(self, sign: int) -> Any:
        return self.high if sign > 0 else self.low


def screening_factors(space: Space, system_only: bool = False,
                      levels: Mapping[str, tuple[Any, Any]] | None = None) -> list[Factor]:
    """The factors of ``space`` in spec order: parameters with >= 2 levels (system ones only if asked).

    ``levels`` maps a parameter name to its (low, high) pair, overriding the
    first and last level (a boolean's low is False, its high True); values are
    written as in the spec (``"4MiB"``).
    """
    overrides = dict(levels or {})
    unknown = [name for name in overrides if name not in {p.name for p in space.parameters}]
    if unknown:
        raise ScreeningError(f"screening levels name unknown parameter(s) {unknown} "
                             f"(known: {', '.join(p.name for p in space.parameters)})")
    factors = []
    for parameter in space.parameters:
        if len(parameter.levels) < 2 or (system_only and parameter.role != "system"):
            if parameter.name in overrides:
                raise ScreeningError(f"screening levels given for {parameter.name!r}, which is not screened "
                                     "(it has one level, or --system-only excludes it)")
            continue
        low, high = parameter.levels[0], parameter.levels[-1]
        if {low, high} == {False, True} and all(isinstance(v, bool) for v in (low, high)):
            low, high = False, True  # "False -> True": a switch turned on, whatever order the spec lists it in
        if parameter.name in overrides:
            low, high = _pair(parameter, overrides[parameter.name])
        factors.append(Factor(parameter.name, low, high))
    if not factors:
        raise ScreeningError(f"space {space.name!r} has no parameter with two or more levels to screen"
                             + (" among its system parameters" if system_only else ""))
    return factors


def _pair(parameter, pair: Any) -> tuple[Any, Any]:
    if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
        raise ScreeningError(f"screening levels of {parameter.name!r} must be [low, high], got {pair!r}")
    try:
        low, high = (parameter.normalise(value) for value in pair)
    except ValueError as error:
        raise ScreeningError(f"screening levels: {error}") from None
    if low == high:
        raise ScreeningError(f"screening levels of {parameter.name!r}: low and high are both {pair[0]!r}")
    return low, high
