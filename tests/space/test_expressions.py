"""The restricted evaluator gives the same answer on one configuration and on numpy columns."""

import numpy as np
import pytest

from iotune.space.expressions import Expression, ExpressionError

KINDS = {"api": "text", "cb_nodes": "number", "transfer_size": "number", "collective": "number"}
ROWS = [
    {"api": "MPIIO", "cb_nodes": 2, "transfer_size": 4096, "collective": True},
    {"api": "POSIX", "cb_nodes": None, "transfer_size": 0, "collective": None},
    {"api": "MPIIO", "cb_nodes": 0, "transfer_size": 2**20, "collective": False},
]


def columns(rows):
    out = {}
    for name in KINDS:
        values = [row[name] for row in rows]
        filled = [0 if v is None else v for v in values]
        data = np.array(filled, dtype=str) if KINDS[name] == "text" else np.array(filled, dtype=np.int64)
        out[name] = (data, np.array([v is not None for v in values]))
    return out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("api == 'MPIIO'", [True, False, True]),
        ("cb_nodes is None", [False, True, False]),
        ("cb_nodes is not None", [True, False, True]),
        ("cb_nodes <= 2", [True, False, True]),
        ("not cb_nodes <= 2", [False, True, False]),
        ("cb_nodes != 5", [True, False, True]),
        ("cb_nodes in (0, 2)", [True, False, True]),
        ("cb_nodes not in (0, 1)", [True, False, False]),
        ("api in ['POSIX']", [False, True, False]),
        ("collective", [True, False, False]),
        ("api == 'MPIIO' and collective", [True, False, False]),
        ("collective or cb_nodes is None", [True, True, False]),
        ("1 <= cb_nodes < 3", [True, False, False]),
        ("transfer_size <= size('4KiB')", [True, True, False]),
        ("transfer_size % 4096 == 0", [True, True, True]),
        ("size('1MiB') % transfer_size == 0", [True, False, True]),
        ("size('1MiB') / transfer_size >= 1", [True, False, True]),
        ("not (size('1MiB') // transfer_size == 3)", [True, False, True]),
        ("transfer_size == 0 or size('1MiB') % transfer_size == 0", [True, True, True]),
        ("cb_nodes + 1 > 0", [True, False, True]),
        ("-cb_nodes < 0", [True, False, False]),
        ("cb_nodes * 2 - 1 == 3", [True, False, False]),
        ("cb_nodes in (-1, 0)", [False, False, True]),
    ],
)
def test_scalar_and_vector_agree(text, expected):
    expression = Expression(text, KINDS)
    assert [expression.evaluate(row) for row in ROWS] == expected
    assert expression.evaluate_columns(columns(ROWS), len(ROWS)).tolist() == expected


def test_names_in_order_of_appearance():
    assert Expression("transfer_size <= 4096 or cb_nodes is None and transfer_size > 0", KINDS).names == (
        "transfer_size",
        "cb_nodes",
    )


def test_constant_expression_broadcasts():
    assert Expression("1 < 2", KINDS).evaluate_columns(columns(ROWS), 3).tolist() == [True, True, True]


@pytest.mark.parametrize(
    "text", ["api.x", "open('f')", "api[0]", "lambda: 1", "x if api else y", "{1: 2}", "", "b'x' == api"]
)
def test_rejected(text):
    with pytest.raises(ExpressionError):
        Expression(text, KINDS)
