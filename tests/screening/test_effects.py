"""Effects and ranks on synthetic responses: sum of sign x response, ranked by |effect| (paper 000, Table 2)."""

import numpy as np
import pytest

from iotune.screening import build_design, screen_function, screening_factors
from iotune.space import Space

SPACE = Space.from_text("""
name: linear
parameters:
""" + "".join(f"  - {{name: p{j}, type: integer, levels: [0, 1, 2], role: system, layer: mpiio}}\n"
              for j in range(7)))
COEFFICIENTS = [0.3, -4.0, 1.5, 0.0, 2.5, -0.8, 6.0]


def linear(configuration):
    return 10.0 + sum(c * (configuration[f"p{j}"] - 1) for j, c in enumerate(COEFFICIENTS))


def test_linear_response_recovers_coefficients_and_their_order():
    design = build_design(SPACE, screening_factors(SPACE))
    result = screen_function(design, linear)
    by_name = {e.name: e for e in result.effects}
    for j, c in enumerate(COEFFICIENTS):
        assert by_name[f"p{j}"].effect_s == pytest.approx(len(design.rows) * c)
    assert result.ranking == [f"p{j}" for j in np.argsort(-np.abs(COEFFICIENTS), kind="stable")]
    assert [e.rank for e in result.effects] == list(range(1, 8))


def test_effects_are_the_hand_computed_signed_sums():
    design = build_design(SPACE, screening_factors(SPACE))
    responses = [float(i * i % 7) for i in range(len(design.rows))]
    result = screen_function(design, lambda c: responses[[r.key for r in design.rows].index(c.key)])
    for j in range(7):
        hand = sum(design.matrix[i, j] * responses[i] for i in range(len(responses)))
        assert next(e for e in result.effects if e.name == f"p{j}").effect_s == pytest.approx(hand)
    assert {e.low for e in result.effects} == {"0"} and {e.high for e in result.effects} == {"2"}
