"""Operators of the construction subset: arithmetic, comparisons, membership and truth.

Ints are computed exactly (bounded); a size without a value is a SymPy expression (``//`` its
floor, ``%`` its ``Mod``); a comparison with one is decided by SymPy's assumptions where it can be
(``n > 0`` for a positive size), else it is unknown. Strings, lists and tuples add, repeat and
``%``-format as in Python; anything else gives an :class:`~.values.Unknown`.
"""

from __future__ import annotations

import ast
import operator
from typing import Any

from ...._sympy import sympy
from .core import Core
from .frame import MAX_INT, MAX_ITEMS, source_of
from .values import Ref, Unknown

__all__ = ["Operators", "truth", "is_size", "plain_number", "sympy_value"]

_OPS: dict[type, Any] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitAnd: operator.and_,
    ast.BitXor: operator.xor,
}
_COMPARE: dict[type, Any] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
_SYMPY_COMPARE: dict[type, Any] = {  # SymPy's relations, made (SymPy imported) only for a symbolic comparison
    ast.Eq: lambda a, b: sympy.Eq(a, b),
    ast.NotEq: lambda a, b: sympy.Ne(a, b),
    ast.Lt: lambda a, b: sympy.Lt(a, b),
    ast.LtE: lambda a, b: sympy.Le(a, b),
    ast.Gt: lambda a, b: sympy.Gt(a, b),
    ast.GtE: lambda a, b: sympy.Ge(a, b),
}
_PLAIN = (int, float, str, bool, type(None))


def is_size(value: Any) -> bool:
    """An int (not a bool) or a SymPy expression.

    Parameters
    ----------
    value : object

    Returns
    -------
    bool
    """
    return (isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, sympy.Expr)


def plain_number(value: Any) -> bool:
    """A Python number (bools count, as in Python arithmetic) or a SymPy expression.

    Parameters
    ----------
    value : object

    Returns
    -------
    bool
    """
    return isinstance(value, (int, float, sympy.Expr))


def truth(value: Any, length: Any = None) -> bool | None:
    """Python's truth of ``value``; None when it cannot be known (an Unknown, a symbolic size).

    Parameters
    ----------
    value : object
    length : int or None
        ``len(value)`` for a framework container (an empty ``ModuleList`` is false).

    Returns
    -------
    bool or None
    """
    if isinstance(value, Unknown):
        return None
    if isinstance(value, (*_PLAIN, list, tuple, dict, set, range)):
        return bool(value)
    if isinstance(value, sympy.logic.boolalg.BooleanAtom):
        return bool(value)
    if isinstance(value, sympy.Basic):
        if value.is_Number:
            return bool(value)
        return None
    if length is not None:
        return length > 0 if isinstance(length, int) else None
    return True


def sympy_value(value: Any) -> Any:
    """A SymPy integer as a plain int (a list index, a dict key, a result); anything else as it is.

    Parameters
    ----------
    value : object

    Returns
    -------
    object

    Examples
    --------
    >>> import sympy
    >>> sympy_value(sympy.Integer(3)), sympy_value(sympy.Symbol("n"))
    (3, n)
    """
    if isinstance(value, sympy.Basic) and value.is_Integer:
        return int(value)
    return value


class Operators(Core):
    """Operators and iteration (the first layer of :class:`derive.read.code.python.Interpreter`)."""

    def _BinOp(self, node: ast.BinOp) -> Any:
        return self.binop(node.op, self.eval(node.left), self.eval(node.right), node)

    def binop(self, op: ast.operator, left: Any, right: Any, node: ast.AST) -> Any:
        """``left op right`` as Python computes it; ints exactly, SymPy for sizes without a value.

        Parameters
        ----------
        op : ast.operator
        left, right : object
        node : ast.AST

        Returns
        -------
        object
        """
        line = getattr(node, "lineno", 0)
        for side in (left, right):
            if isinstance(side, Unknown):
                return side.derived(source_of(node))
        if self.semantics.owns(left) or self.semantics.owns(right):
            return self.semantics.binop(op, left, right, node)
        fn = _OPS.get(type(op))
        if plain_number(left) and plain_number(right):
            return self._numbers(op, fn, left, right, node)
        if isinstance(left, (str, list, tuple)) and isinstance(op, (ast.Add, ast.Mult, ast.Mod)):
            return self._sequences(op, left, right, node)
        if isinstance(left, int) and isinstance(right, (list, tuple, str)) and isinstance(op, ast.Mult):
            return self._sequences(op, right, left, node)
        if isinstance(left, dict) and isinstance(right, dict) and isinstance(op, ast.BitOr):
            return {**left, **right}
        return Unknown(
            source_of(node), f"{type(left).__name__} {type(op).__name__} {type(right).__name__} is not read", line
        )

    def _numbers(self, op: ast.operator, fn: Any, left: Any, right: Any, node: ast.AST) -> Any:
        line = getattr(node, "lineno", 0)
        symbolic = isinstance(left, sympy.Basic) or isinstance(right, sympy.Basic)
        if isinstance(op, (ast.FloorDiv, ast.Mod, ast.Div)) and right == 0:
            return Unknown(source_of(node), "division by zero", line)
        if isinstance(op, ast.Pow) and isinstance(right, int) and abs(right) > 4096:
            return Unknown(source_of(node), "a power too large to compute", line)
        if symbolic:
            a, b = sympy.sympify(left), sympy.sympify(right)
            if isinstance(op, ast.FloorDiv):
                result = sympy.floor(a / b)
            elif isinstance(op, ast.Mod):
                result = sympy.Mod(a, b)
            elif isinstance(op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
                result = fn(a, b)
            else:
                return Unknown(source_of(node), "bit operations on sizes without a value", line)
            return sympy_value(result)
        if isinstance(op, (ast.LShift, ast.Pow)) and isinstance(left, int) and isinstance(right, int):
            bits = max(abs(left), 2).bit_length() * (right if isinstance(op, ast.Pow) else 1) + (
                right if isinstance(op, ast.LShift) else 0
            )
            if bits > 4096:
                return Unknown(source_of(node), "a number too large to compute", line)
        try:
            result = fn(left, right)
        except (ArithmeticError, ValueError, TypeError):
            return Unknown(source_of(node), "arithmetic Python refuses", line)
        if isinstance(result, int) and abs(result) > MAX_INT:
            return Unknown(source_of(node), f"an integer beyond {MAX_INT:.0e}", line)
        return result

    def _sequences(self, op: ast.operator, left: Any, right: Any, node: ast.AST) -> Any:
        line = getattr(node, "lineno", 0)
        if isinstance(op, ast.Mod):
            if not isinstance(left, str):
                return Unknown(source_of(node), "% of a sequence", line)
            values = right if isinstance(right, tuple) else (right,)
            if not all(isinstance(v, _PLAIN) for v in values):
                return Unknown(source_of(node), "%-formatting of objects", line)
            try:
                return left % right
            except (TypeError, ValueError):
                return Unknown(source_of(node), "%-formatting Python refuses", line)
        if isinstance(op, ast.Mult):
            if not (isinstance(right, int) and not isinstance(right, bool)):
                return Unknown(source_of(node), "repeating a sequence a number of times derive does not know", line)
            if len(left) * max(right, 0) > MAX_ITEMS:
                raise self.refuse(node, f"more than {MAX_ITEMS:,} items in one sequence")
            return left * right
        if type(left) is not type(right):
            return Unknown(source_of(node), f"{type(left).__name__} + {type(right).__name__}", line)
        if len(left) + len(right) > MAX_ITEMS:
            raise self.refuse(node, f"more than {MAX_ITEMS:,} items in one sequence")
        return left + right

    def why_unknown(self, value: Any, node: ast.AST) -> str:
        """Why ``value`` (the value of ``node``) is not known: for refusals and unknown results.

        Parameters
        ----------
        value : object
        node : ast.AST

        Returns
        -------
        str
        """
        if isinstance(value, Unknown):
            return f"{value.reason()}"
        if isinstance(value, Ref):
            return f"{value.path} is not read by derive"
        if isinstance(value, sympy.Basic):
            names = sorted(str(s) for s in value.free_symbols)
            origins = [self.symbol_origins.get(s) for s in value.free_symbols]
            detail = "; ".join(sorted({o for o in origins if o}))
            return f"{source_of(node)!r} depends on {', '.join(names)} without a value" + (
                f" ({detail})" if detail else ""
            )
        return f"{source_of(node)!r} is not known"

    def compare(self, op: ast.cmpop, left: Any, right: Any, node: ast.AST) -> Any:
        """``left op right``: a bool, or an Unknown when it cannot be decided.

        Parameters
        ----------
        op : ast.cmpop
        left, right : object
        node : ast.AST

        Returns
        -------
        bool or Unknown
        """
        line = getattr(node, "lineno", 0)
        if isinstance(op, (ast.Is, ast.IsNot)):
            if isinstance(left, Unknown) or isinstance(right, Unknown):
                unknown = left if isinstance(left, Unknown) else right
                return unknown.derived(source_of(node))
            same = left is right or (left is None and right is None)
            return same if isinstance(op, ast.Is) else not same
        for side in (left, right):
            if isinstance(side, Unknown):
                return side.derived(source_of(node))
        if isinstance(op, (ast.In, ast.NotIn)):
            found = self.contains(right, left, node)
            if isinstance(found, Unknown):
                return found
            return found if isinstance(op, ast.In) else not found
        if isinstance(left, sympy.Basic) or isinstance(right, sympy.Basic):
            if not (plain_number(left) and plain_number(right)):
                return isinstance(op, ast.NotEq)
            decided = _SYMPY_COMPARE[type(op)](sympy.sympify(left), sympy.sympify(right))
            if decided in (sympy.true, sympy.false):
                return bool(decided)
            return Unknown(
                source_of(node), self.why_unknown(left if isinstance(left, sympy.Basic) else right, node), line
            )
        if self.semantics.owns(left) or self.semantics.owns(right):
            if isinstance(op, (ast.Eq, ast.NotEq)):
                return (left is right) == isinstance(op, ast.Eq)
            return Unknown(source_of(node), "comparing framework objects", line)
        try:
            return bool(_COMPARE[type(op)](left, right))
        except TypeError:
            return Unknown(source_of(node), "a comparison Python refuses", line)

    def contains(self, container: Any, item: Any, node: ast.AST) -> Any:
        """``item in container``: a bool or an Unknown.

        Parameters
        ----------
        container, item : object
        node : ast.AST

        Returns
        -------
        bool or Unknown
        """
        items = self.iterate(container, node)
        if items is None:
            return Unknown(source_of(node), self.why_unknown(container, node), getattr(node, "lineno", 0))
        if isinstance(container, str):
            return isinstance(item, str) and item in container
        undecided = False
        for candidate in items:
            same = self.compare(ast.Eq(), candidate, item, node)
            if same is True:
                return True
            if isinstance(same, Unknown):
                undecided = True
        if undecided:
            return Unknown(source_of(node), self.why_unknown(item, node), getattr(node, "lineno", 0))
        return False

    def iterate(self, value: Any, node: ast.AST) -> list[Any] | range | None:
        """The items of ``value`` in iteration order, or None when they cannot be known.

        Parameters
        ----------
        value : object
        node : ast.AST

        Returns
        -------
        list, range or None
        """
        if isinstance(value, range):
            return value
        if isinstance(value, (list, tuple, str, set)):
            return list(value)
        if isinstance(value, dict):
            return list(value)
        if self.semantics.owns(value):
            return self.semantics.iterate(self, value, node)
        return None
