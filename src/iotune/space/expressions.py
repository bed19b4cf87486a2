"""Restricted expressions for ``when:`` rules and constraints.

An expression is parsed once with :mod:`ast`, checked against a whitelist and
the parameters' kinds, and can then be evaluated on one configuration (Python
scalars) or on whole columns of candidates (numpy arrays) with the same result.

Semantics shared by both evaluators:

* an inactive parameter has the value ``None``; any comparison involving it is
  False, except ``x is None`` (True) and ``x is not None`` (False);
* arithmetic with ``None`` gives ``None``;
* ``and``, ``or`` and ``not`` give booleans and short-circuit;
* division or modulo by zero makes the whole expression False, so a constraint
  that divides by zero is violated rather than crashing.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iotune.errors import SpaceError, UnitError
from iotune.units import parse_size

if TYPE_CHECKING:
    import numpy as np

NUMBER = "number"
TEXT = "text"
NONE = "none"

ALLOWED = (
    "allowed: parameter names, numbers, strings, True/False/None, size('4MiB'), "
    "== != < <= > >=, 'is None', 'is not None', 'in (...)', and/or/not, + - * / // %"
)

_ARITHMETIC = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_DIVISIONS = (ast.Div, ast.FloorDiv, ast.Mod)
_ORDERING = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
_FORBIDDEN = {
    ast.Attribute: "attribute access",
    ast.Subscript: "subscripts",
    ast.Lambda: "lambda",
    ast.IfExp: "conditional expressions",
    ast.Call: "calls other than size('4MiB')",
    ast.Dict: "dict literals",
    ast.ListComp: "comprehensions",
    ast.SetComp: "comprehensions",
    ast.DictComp: "comprehensions",
    ast.GeneratorExp: "comprehensions",
    ast.JoinedStr: "f-strings",
    ast.NamedExpr: "assignment expressions",
    ast.Starred: "starred expressions",
    ast.Await: "await",
}


MAX_LITERAL = 2**63 - 1
"""Largest whole-number literal (magnitude) an expression may hold."""

class ExpressionError(SpaceError):
    """An expression is not allowed; the caller prefixes the file and line."""


class _DivisionByZero(Exception):
    """Raised inside scalar evaluation; the expression then counts as False."""


@dataclass
class _Column:
    """Values of one sub-expression over all rows, with the rows where it is None or undefined."""

    data: Any
    present: Any
    undefined: Any


class Expression:
    """A checked, restricted Python expression over parameter names.

    ``kinds`` maps each parameter name to ``"number"`` (integer, size, boolean)
    or ``"text"`` (categorical); mixing kinds (``api < 3``) is rejected at load
    time so that the numpy evaluator never meets an impossible operation.
    """

    def __init__(self, text: str, kinds: Mapping[str, str]):
        if not isinstance(text, str) or not text.strip():
            raise ExpressionError(f"expression must be a non-empty string, got {text!r}")
        self.text = text
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as exc:
            raise ExpressionError(f"{_shorten(text)!r} is not a valid expression ({exc.msg})") from None
        except (RecursionError, MemoryError):
            raise ExpressionError(f"{_shorten(text)!r} nests too deeply") from None
        self._kinds = kinds
        self.names: tuple[str, ...] = ()
        self._root = self._fold(tree.body)
        self._kind(self._root)

    def __repr__(self) -> str:
        return f"Expression({self.text!r})"

    def _fail(self, why: str) -> ExpressionError:
        return ExpressionError(f"{_shorten(self.text)!r}: {why} ({ALLOWED})")

    def _fold(self, node: ast.AST) -> ast.AST:
        """Replace ``size('4MiB')`` calls and negated literals by constants."""
        if isinstance(node, ast.Call):
            is_size = isinstance(node.func, ast.Name) and node.func.id == "size"
            if not is_size or node.keywords or len(node.args) != 1 or not isinstance(node.args[0], ast.Constant):
                raise self._fail("calls other than size('4MiB') with one literal are not allowed")
            try:
                return ast.Constant(parse_size(node.args[0].value))
            except UnitError as exc:
                raise self._fail(f"size() {exc}") from None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            operand = self._fold(node.operand)
            if isinstance(operand, ast.Constant):
                number = operand.value
                if isinstance(number, (int, float)) and not isinstance(number, bool):
                    return ast.Constant(-number)
            assert isinstance(operand, ast.expr)  # folding an expression gives an expression
            node.operand = operand
            return node
        for field, value in ast.iter_fields(node):
            if isinstance(value, list):
                setattr(node, field, [self._fold(v) if isinstance(v, ast.AST) else v for v in value])
            elif isinstance(value, ast.expr):
                setattr(node, field, self._fold(value))
        return node

    def _kind(self, node: ast.AST) -> str:
        """Check ``node`` against the whitelist and return its kind."""
        if isinstance(node, ast.Constant):
            value = node.value
            if value is None:
                return NONE
            if isinstance(value, str):
                return TEXT
            if type(value) is int and abs(value) > MAX_LITERAL:
                raise self._fail("a whole number beyond ±(2**63 - 1) is not allowed (levels are 64-bit integers)")
            if type(value) in (bool, int, float):
                return NUMBER
            raise self._fail(f"constant {value!r} is not allowed")
        if isinstance(node, ast.Name):
            if node.id not in self._kinds:
                known = ", ".join(self._kinds)
                raise self._fail(f"unknown name {node.id!r} (parameters: {known}; quote text like 'MPIIO')")
            if node.id not in self.names:
                self.names += (node.id,)
            return self._kinds[node.id]
        if isinstance(node, ast.BoolOp):
            for operand in node.values:
                self._kind(operand)
            return NUMBER
        if isinstance(node, ast.UnaryOp):
            kind = self._kind(node.operand)
            if isinstance(node.op, ast.Not):
                return NUMBER
            if isinstance(node.op, (ast.USub, ast.UAdd)) and kind == NUMBER:
                return NUMBER
            raise self._fail(f"unary {type(node.op).__name__} on {kind} is not allowed")
        if isinstance(node, ast.BinOp):
            if type(node.op) not in _ARITHMETIC:
                raise self._fail(f"operator {type(node.op).__name__} is not allowed")
            kinds = (self._kind(node.left), self._kind(node.right))
            if kinds != (NUMBER, NUMBER):
                raise self._fail(f"arithmetic needs numbers on both sides, got {kinds[0]} and {kinds[1]}")
            return NUMBER
        if isinstance(node, ast.Compare):
            self._check_compare(node)
            return NUMBER
        why = _FORBIDDEN.get(type(node), f"{type(node).__name__} expressions")
        raise self._fail(f"{why} not allowed")

    def _check_compare(self, node: ast.Compare) -> None:
        left = self._kind(node.left)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            if isinstance(op, (ast.Is, ast.IsNot)):
                if not (isinstance(right_node, ast.Constant) and right_node.value is None):
                    raise self._fail("'is' is only allowed as 'x is None' or 'x is not None'")
                left = NONE
                continue
            if isinstance(op, (ast.In, ast.NotIn)):
                if not isinstance(right_node, (ast.Tuple, ast.List, ast.Set)):
                    raise self._fail("'in' needs a literal tuple or list on the right, e.g. x in (1, 2)")
                for element in right_node.elts:
                    if not isinstance(element, ast.Constant):
                        raise self._fail("'in' lists may hold only literal numbers and strings")
                    kind = self._kind(element)
                    if kind != left:
                        raise self._fail(f"'in' compares {left} with {kind} {element.value!r}")
                left = NUMBER
                continue
            right = self._kind(right_node)
            if NONE in (left, right):
                raise self._fail("compare with None using 'is None' or 'is not None'")
            if left != right:
                raise self._fail(f"comparison of {left} with {right} is always False")
            left = right

    def evaluate(self, values: Mapping[str, Any]) -> bool:
        """Truth of the expression for one configuration (None = inactive parameter)."""
        try:
            return _truth(self._scalar(self._root, values))
        except _DivisionByZero:
            return False

    def _scalar(self, node: ast.AST, values: Mapping[str, Any]) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return values[node.id]
        if isinstance(node, ast.BoolOp):
            wanted = isinstance(node.op, ast.Or)
            for value in node.values:
                if _truth(self._scalar(value, values)) == wanted:
                    return wanted
            return not wanted
        if isinstance(node, ast.UnaryOp):
            operand = self._scalar(node.operand, values)
            if isinstance(node.op, ast.Not):
                return not _truth(operand)
            if operand is None:
                return None
            return -operand if isinstance(node.op, ast.USub) else +operand
        if isinstance(node, ast.BinOp):
            left = self._scalar(node.left, values)
            right = self._scalar(node.right, values)
            if left is None or right is None:
                return None
            if isinstance(node.op, _DIVISIONS) and right == 0:
                raise _DivisionByZero
            return _ARITHMETIC[type(node.op)](left, right)
        if isinstance(node, ast.Compare):
            return self._scalar_compare(node, values)
        raise AssertionError(f"unchecked node {node!r}")

    def _scalar_compare(self, node: ast.Compare, values: Mapping[str, Any]) -> bool:
        left = self._scalar(node.left, values)
        result = True
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            if isinstance(op, (ast.Is, ast.IsNot)):
                result = result and ((left is None) == isinstance(op, ast.Is))
                left = None
                continue
            if isinstance(op, (ast.In, ast.NotIn)):
                members = _members(right_node)
                result = result and left is not None and ((left in members) == isinstance(op, ast.In))
                left = None
                continue
            right = self._scalar(right_node, values)
            result = result and left is not None and right is not None and _ORDERING[type(op)](left, right)
            left = right
        return bool(result)

    def evaluate_columns(self, columns: Mapping[str, tuple[np.ndarray, np.ndarray]], rows: int) -> np.ndarray:
        """Truth for every row at once.

        ``columns`` maps each parameter name to ``(values, active)``: its value
        in every row and a boolean array that is False where it is inactive.
        Returns a boolean array of length ``rows``.
        """
        import numpy as np

        with np.errstate(all="ignore"):
            column = self._vector(self._root, columns)
            result = _vector_truth(column) & ~np.asarray(column.undefined, dtype=bool)
        return np.broadcast_to(result, (rows,)).copy()

    def _vector(self, node: ast.AST, columns: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> _Column:
        import numpy as np

        if isinstance(node, ast.Constant):
            return _Column(0 if node.value is None else node.value, node.value is not None, False)
        if isinstance(node, ast.Name):
            data, active = columns[node.id]
            return _Column(data, active, False)
        if isinstance(node, ast.BoolOp):
            return self._vector_boolean(node, columns)
        if isinstance(node, ast.UnaryOp):
            operand = self._vector(node.operand, columns)
            if isinstance(node.op, ast.Not):
                return _Column(~_vector_truth(operand), True, operand.undefined)
            data = -operand.data if isinstance(node.op, ast.USub) else operand.data
            return _Column(data, operand.present, operand.undefined)
        if isinstance(node, ast.BinOp):
            left = self._vector(node.left, columns)
            right = self._vector(node.right, columns)
            present = np.logical_and(left.present, right.present)
            undefined = np.logical_or(left.undefined, right.undefined)
            divisor = right.data
            if isinstance(node.op, _DIVISIONS):
                zero = np.equal(divisor, 0)
                undefined = undefined | (present & zero)
                divisor = np.where(zero, 1, divisor)
            return _Column(_ARITHMETIC[type(node.op)](left.data, divisor), present, undefined)
        if isinstance(node, ast.Compare):
            return self._vector_compare(node, columns)
        raise AssertionError(f"unchecked node {node!r}")

    def _vector_boolean(self, node: ast.BoolOp, columns) -> _Column:
        # Mirrors short-circuiting: an operand's division by zero only counts in
        # rows where the scalar evaluator would have reached that operand.
        import numpy as np

        wanted = isinstance(node.op, ast.Or)
        undecided: Any = True
        undefined: Any = False
        for value in node.values:
            column = self._vector(value, columns)
            undefined = undefined | (undecided & np.asarray(column.undefined))
            undecided = undecided & (_vector_truth(column) != wanted)
        return _Column(~undecided if wanted else undecided, True, undefined)

    def _vector_compare(self, node: ast.Compare, columns) -> _Column:
        import numpy as np

        left = self._vector(node.left, columns)
        result: Any = True
        undefined: Any = left.undefined
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            if isinstance(op, (ast.Is, ast.IsNot)):
                present = np.asarray(left.present, dtype=bool)
                result = result & (~present if isinstance(op, ast.Is) else present)
                left = _Column(0, False, False)
                continue
            if isinstance(op, (ast.In, ast.NotIn)):
                members = _members(right_node)
                inside = np.isin(left.data, members) if members else np.zeros(np.shape(left.data), dtype=bool)
                result = result & left.present & (inside if isinstance(op, ast.In) else ~inside)
                left = _Column(0, False, False)
                continue
            right = self._vector(right_node, columns)
            undefined = undefined | right.undefined
            result = result & left.present & right.present & _ORDERING[type(op)](left.data, right.data)
            left = right
        return _Column(result, True, undefined)


def _members(node: ast.expr) -> list[Any]:
    """The values of the literal list on the right of a checked ``in`` (``_check_compare`` allows no other)."""
    assert isinstance(node, (ast.Tuple, ast.List, ast.Set))
    return [element.value for element in node.elts if isinstance(element, ast.Constant)]


def _shorten(text: str, limit: int = 120) -> str:
    """``text`` cut to ``limit`` characters for a message."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _truth(value: Any) -> bool:
    return value is not None and bool(value)


def _vector_truth(column: _Column) -> np.ndarray:
    import numpy as np

    data = np.asarray(column.data)
    truth = data != "" if data.dtype.kind in "US" else data.astype(bool)
    return np.logical_and(column.present, truth)
