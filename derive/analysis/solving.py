"""The largest size that keeps a configuration within a parameter budget.

A parameter count is a polynomial in any one size (quadratic in the hidden size of
every recurrent layer here). :func:`solve` derives that polynomial by building the
configuration with a symbolic size, lets SymPy solve ``count(x) = budget`` for its
positive real root, and returns both the exact root and the largest integer n with
``count(n) <= budget``, checked by evaluating the count at n and n + 1.

>>> import derive.torch as dt
>>> s = solve(lambda h: dt.LSTM(32, h, 2, bidirectional=True), 1_000_000)
>>> s.n, s.count, s.next_count
(172, 996224, 1007552)
>>> s.root
-9/2 + sqrt(125081)/2
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .._sympy import sympy
from ..engine.lazy import Registry
from ..engine.symbols import as_expr
from ..engine.validate import shown

__all__ = ["solve", "Solution"]

#: The size symbol a configuration is built with when it is solved for (a positive integer).
n = sympy.Symbol("n", integer=True, positive=True)
#: The same size as a positive real, for the root of ``count(x) = budget``.
x = sympy.Symbol("x", positive=True)


@dataclass(frozen=True)
class Solution:
    """The answer of :func:`solve`.

    Attributes
    ----------
    n : int
        The largest size with ``count(n) <= budget``.
    polynomial : sympy.Expr or None
        The count as a polynomial in :data:`x`; None when the count could only be evaluated at
        integers (no symbolic form).
    budget : int
    count : int
        The count at ``n``.
    next_count : int
        The count at ``n + 1`` (greater than ``budget``).
    root : sympy.Expr or None
        (A property, derived when first asked for.) The exact positive real root of
        ``count(x) = budget`` (``n == floor(root)``), e.g. ``-9/2 + sqrt(125081)/2``; None without a
        polynomial or without a positive root.
    """

    n: int
    polynomial: sympy.Expr | None
    budget: int
    count: int
    next_count: int

    @cached_property
    def root(self) -> sympy.Expr | None:
        """The exact positive real root of ``count(x) = budget``; None without one (see the class)."""
        if self.polynomial is None:
            return None
        poly = sympy.Poly(self.polynomial - self.budget, x)
        coefficients = [int(c) for c in poly.all_coeffs()]
        if len(coefficients) == 2:
            a, c = coefficients
            root = sympy.Rational(-c, a)
        elif len(coefficients) == 3:
            a, b, c = coefficients
            discriminant = b * b - 4 * a * c
            if discriminant < 0:
                return None
            root = (-b + sympy.sqrt(sympy.Integer(discriminant))) / (2 * a)
        else:
            real = poly.count_roots()
            if real == 0:
                return None
            root = sympy.CRootOf(poly.as_expr(), real - 1)  # the largest real root, exactly
        return root if root.is_positive else None

    @property
    def exact(self) -> bool:
        """Whether the budget is met exactly: ``count(n) == budget``."""
        return self.count == self.budget

    def __int__(self) -> int:
        return self.n

    def _repr_latex_(self) -> str:
        """Jupyter: the equation and its solution as LaTeX; see :func:`derive.render.display.solution_latex`."""
        return FORMATTERS["latex"](self)


#: Notebook display of a :class:`Solution`, by MIME kind: filled by :mod:`derive.render.display`
#: when it is imported (``import derive`` does), so that the analysis does not depend on the renderers.
FORMATTERS: Registry[str, Callable[[Solution], str]] = Registry("solution_formatters")


def _as_count(value: Any) -> sympy.Expr:
    if not isinstance(value, (int, sympy.Basic)):
        value = getattr(value, "count", value)
    if isinstance(value, bool) or not isinstance(value, (int, sympy.Expr)):
        hint = (
            " (a derive.keras layer not given its input: give it input_dim=..., or return "
            "derive.keras.count(layer, input_dim))"
            if callable(value)
            else ""
        )
        raise TypeError(
            f"count must be an int, a SymPy expression or an object with .count, got {type(value).__name__}{hint}"
        )
    return as_expr(value)


def _integer(value: Any) -> int:
    value = _as_count(value)
    if not value.is_Integer:
        raise TypeError(f"the count at an integer size is not an integer: {value}")
    return int(value)


def solve(count: Any, budget: int, symbol: sympy.Symbol | None = None, *, minimum: int = 1) -> Solution:
    """The largest size n >= ``minimum`` whose parameter count is at most ``budget``.

    Parameters
    ----------
    count : callable (int or sympy.Symbol) -> object with ``.count``, or sympy.Expr
        Either a function of the size returning a configuration (any ``derive`` adapter object,
        e.g. ``lambda h: derive.torch.LSTM(32, h, 2, bidirectional=True)``) or a count, or a
        SymPy count expression in ``symbol``. A function is called once with a positive-integer
        symbol to get the polynomial; if it refuses a symbol it is evaluated at integers only
        (then ``root`` is None).
    budget : int
        The parameter budget (parameters; >= 0).
    symbol : sympy.Symbol, optional
        The size to solve for when ``count`` is an expression (may be omitted if the expression
        has exactly one free symbol).
    minimum : int, default 1
        The smallest size allowed.

    Returns
    -------
    Solution
        ``n``, the exact ``root``, the counts at n and n + 1.

    Raises
    ------
    TypeError
        ``budget`` not an int; ``count`` of the wrong type; a count that is not an integer polynomial.
    ValueError
        The count does not depend on the size, has other free symbols, is not increasing for
        sizes >= ``minimum``, or already exceeds ``budget`` at ``minimum``.
    RuntimeError
        The configuration's counts at n and n + 1 disagree with its polynomial (a function that
        builds different configurations for a symbol and for an int).

    Notes
    -----
    Exact at any budget (``10**300`` included) and fast: the size is found with Python integers
    (:func:`math.isqrt` for the quadratic counts of recurrent layers); the exact root is derived
    only when :attr:`Solution.root` is read.

    Examples
    --------
    The units u of a Keras-style bidirectional layer that match a budget: pass any callable
    ``u -> configuration``; ``solve(lambda u: cfg(u), budget).exact`` says whether some u meets
    it exactly.
    """
    if isinstance(budget, bool) or not isinstance(budget, (int, sympy.Integer)):
        raise TypeError(f"budget must be an int (parameters), got {type(budget).__name__}")
    budget = int(budget)
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {shown(budget)}")
    if isinstance(minimum, bool) or not isinstance(minimum, int) or minimum < 0:
        raise ValueError(f"minimum must be an int >= 0, got {shown(minimum)}")

    if callable(count) and not isinstance(count, sympy.Basic):
        function = count
        try:
            expr = _as_count(function(n))
        except (TypeError, ValueError):
            expr = None
        if expr is not None:
            polynomial = expr.subs(n, x)
        else:
            polynomial = None
        at = lambda k: _integer(function(k))  # noqa: E731
    elif isinstance(count, sympy.Expr):
        free = count.free_symbols
        if symbol is None:
            if len(free) != 1:
                raise ValueError(f"symbol must be given: the count has free symbols {sorted(map(str, free))}")
            symbol = next(iter(free))
        if not isinstance(symbol, sympy.Symbol):
            raise TypeError(f"symbol must be a sympy.Symbol, got {type(symbol).__name__}")
        polynomial = count.subs(symbol, x)
        at = lambda k: _integer(count.subs(symbol, k))  # noqa: E731
    else:
        raise TypeError(f"count must be a callable or a SymPy expression, got {type(count).__name__}")

    if polynomial is not None:
        polynomial = sympy.expand(polynomial)
        others = polynomial.free_symbols - {x}
        if others:
            raise ValueError(f"the count has free symbols other than the size: {sorted(map(str, others))}")
        if x not in polynomial.free_symbols:
            raise ValueError(f"the count does not depend on the size: {polynomial}")
        try:
            poly = sympy.Poly(polynomial, x)
        except sympy.PolynomialError:  # sqrt(x), log(x), 1/x ...
            raise TypeError(f"the count is not a polynomial in the size: {polynomial}") from None
        if poly.domain != sympy.ZZ:
            raise TypeError(f"the count is not a polynomial with integer coefficients: {polynomial}")
        _check_increasing(poly, minimum)
        coefficients = [int(c) for c in poly.all_coeffs()]
        value = lambda k: _horner(coefficients, k)  # noqa: E731  (exact: Python ints)
        start = _largest_within(coefficients, budget, minimum)
    else:
        value = at
        start = _search(at, budget, minimum)

    k = max(start, minimum)
    while k > minimum and value(k) > budget:
        k -= 1
    while value(k + 1) <= budget:
        k += 1
    low, high = at(k), at(k + 1)  # the configuration's own counts, not the polynomial's
    if low > budget:
        raise ValueError(f"no size >= {minimum} fits: the count at {minimum} is {low:,} > budget {budget:,}")
    if not low <= budget < high:
        raise RuntimeError(f"internal error: count({k}) = {low}, count({k + 1}) = {high}, budget {budget}")
    return Solution(k, polynomial, budget, low, high)


def _horner(coefficients: list[int], k: int) -> int:
    """The polynomial with ``coefficients`` (highest degree first) at ``k``, in Python ints."""
    total = 0
    for c in coefficients:
        total = total * k + c
    return total


def _largest_within(coefficients: list[int], budget: int, minimum: int) -> int:
    """Largest k >= minimum with p(k) <= budget for p increasing on [minimum, oo), or ``minimum``.

    Exact integer arithmetic at any magnitude: floor division for a line, :func:`math.isqrt` of
    the discriminant for a quadratic (the caller corrects the last unit), bisection otherwise.
    """
    if _horner(coefficients, minimum) > budget:
        return minimum
    if len(coefficients) == 2:
        a, c = coefficients
        return (budget - c) // a
    if len(coefficients) == 3:
        a, b, c = coefficients
        discriminant = b * b - 4 * a * (c - budget)  # >= 0: p(minimum) <= budget
        return max((-b + math.isqrt(discriminant)) // (2 * a), minimum)
    return _search(lambda k: _horner(coefficients, k), budget, minimum)


def _check_increasing(poly: sympy.Poly, minimum: int) -> None:
    """Refuse a count that is not strictly increasing on sizes >= ``minimum``."""
    derivative = poly.diff()
    if all(c >= 0 for c in poly.all_coeffs()) and not derivative.is_zero:
        return
    critical = [r for r in derivative.real_roots() if r >= minimum]
    if derivative.is_zero or critical or derivative(minimum) <= 0:  # Poly.__call__: the value at minimum
        raise ValueError(f"the count is not increasing in the size for sizes >= {minimum}: {poly.as_expr()}")


def _search(at: Callable[[int], int], budget: int, minimum: int) -> int:
    """Largest k >= minimum with at(k) <= budget for an increasing ``at`` (doubling, then bisection)."""
    if at(minimum) > budget:
        return minimum
    low, high = minimum, max(2 * minimum, 1)
    while at(high) <= budget:
        low, high = high, 2 * high
    while high - low > 1:
        mid = (low + high) // 2
        if at(mid) <= budget:
            low = mid
        else:
            high = mid
    return low
