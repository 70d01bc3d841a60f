"""Any count or cost as an exact NumPy-vectorized function of its sizes.

>>> import numpy as np
>>> import derive.torch as dt
>>> from derive import I, H, L
>>> f = vectorize(dt.LSTM(I, H, L, bidirectional=True).count)
>>> f.symbols
(H, I, L)
>>> f(H=np.array([128, 256]), I=32, L=2)
array([ 561152, 2170880])
>>> f(H=10**6, I=10**6, L=10**6).dtype      # beyond int64: exact Python ints
dtype('O')

How it stays exact
------------------
The closed form (a polynomial with integer coefficients, e.g. a ``derive`` count or a
:mod:`derive.cost` figure) is compiled once with :func:`sympy.lambdify` for NumPy and
evaluated in ``int64``. Before that, the inputs are bounded in ``float64`` by
``B = Σ |c| · Π max(|x_i|, 1)^{e_i}`` over the polynomial's terms ``c · Π x_i^{e_i}``: ``B``
bounds the absolute value of the result *and of every partial product and partial sum* the
compiled expression forms on the way. ``B`` is first taken once for the whole call, at each
size's largest magnitude (``B`` grows with every ``|x_i|``, so this bounds every entry); only
if that reaches ``2**62`` (half of int64's range, a margin far above float64's rounding error)
is ``B`` computed entry by entry. Entries with ``B < 2**62`` are computed in int64 and cannot
have wrapped around; if any entry is not, the call is computed with Python ints (an ``object``
array), or raises :class:`OverflowError` with ``overflow="raise"``. Sizes given as Python ints
in an ``object`` array are computed with Python ints. An int64 overflow is never silent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._sympy import sympy
from ..engine.symbols import as_expr
from ..engine.validate import shown

__all__ = ["vectorize", "Vectorized", "SAFE_BOUND"]

#: Entries whose float64 bound reaches this are evaluated with Python ints (see the module docstring).
SAFE_BOUND = 2.0**62


class Vectorized:
    """A polynomial count compiled for NumPy arrays; see :func:`vectorize`.

    Attributes
    ----------
    expr : sympy.Expr
        The polynomial.
    symbols : tuple of sympy.Symbol
        Argument order of positional calls (keywords use the symbols' names).
    overflow : {"object", "raise"}

    Raises
    ------
    TypeError
        ``expr`` is not a polynomial with integer coefficients in ``symbols``.
    """

    def __init__(self, expr: sympy.Expr, symbols: tuple[sympy.Symbol, ...], overflow: str) -> None:
        self.expr = expr
        self.symbols = symbols
        self.overflow = overflow
        try:
            poly = sympy.Poly(expr, *symbols) if symbols else None
        except sympy.PolynomialError:
            poly = False
        if poly is False or (poly is not None and poly.domain != sympy.ZZ):
            raise TypeError(f"expr must be a polynomial with integer coefficients in {symbols}, got {expr}")
        if poly is None and not (expr.is_Integer):
            raise TypeError(f"expr must be an integer polynomial, got {expr}")
        bounds = sympy.symbols(f"m0:{len(symbols)}", positive=True)
        bound = (
            sympy.Add(*(abs(int(c)) * sympy.Mul(*(b**e for b, e in zip(bounds, m))) for m, c in poly.terms()))
            if poly is not None
            else abs(expr)
        )
        self._exact = sympy.lambdify(symbols, expr, "numpy")
        self._bound = sympy.lambdify(bounds, bound, "numpy")

    def _arrays(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[np.ndarray]:
        names = [s.name for s in self.symbols]
        if len(args) > len(names):
            raise TypeError(f"expected at most {len(names)} positional arguments ({', '.join(names)}), got {len(args)}")
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(f"unknown size {key!r}; the arguments are {', '.join(names)}")
            if key in values:
                raise TypeError(f"size {key!r} given twice")
            values[key] = value
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError(f"missing sizes: {', '.join(missing)}")
        arrays = []
        for symbol, name in zip(self.symbols, names):
            array = np.asarray(values[name])
            if array.dtype == object:
                if not all(isinstance(v, int) and not isinstance(v, bool) for v in array.flat):
                    raise TypeError(f"{name} must hold integers")
            elif array.dtype.kind not in "iu":
                raise TypeError(f"{name} must be an integer or an integer array, got dtype {array.dtype}")
            minimum = 1 if symbol.is_positive else 0 if symbol.is_nonnegative else None
            if minimum is not None and array.size:
                smallest = min(array.flat) if array.dtype == object else array.min()
                if smallest < minimum:
                    kind = "a positive integer (a size)" if minimum == 1 else "an integer >= 0"
                    raise ValueError(f"{name} must be {kind} in every entry, got {shown(int(smallest))}")
            arrays.append(array)
        return arrays

    def __call__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        """Evaluate at (broadcast) integer arrays, positionally in :attr:`symbols` order or by name.

        Returns
        -------
        numpy.ndarray
            ``int64`` when every entry fits safely, else ``object`` holding exact Python ints.

        Raises
        ------
        TypeError
            A missing, unknown or non-integer argument.
        ValueError
            An entry below 1 for a positive symbol (every size symbol: I, H, L, P, T, N), below 0
            for a nonnegative one.
        OverflowError
            ``overflow="raise"`` and some entry could exceed int64.
        """
        if not self.symbols:
            value = int(self.expr)
            return np.asarray(value, dtype=np.int64 if abs(value) < SAFE_BOUND else object)
        arrays = self._arrays(args, kwargs)
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
        if all(a.dtype != object for a in arrays):
            # One bound for the whole call, at the largest magnitude of each size: the bound is
            # increasing in every max(|x_i|, 1), so it bounds every entry.
            peaks = [max(float(a.max()), -float(a.min()), 1.0) if a.size else 1.0 for a in arrays]
            if self._bound(*peaks) < SAFE_BOUND:
                result = self._exact(*[a.astype(np.int64, copy=False) for a in arrays])
                result = np.asarray(result, dtype=np.int64)
                return result if result.shape == shape else np.broadcast_to(result, shape).copy()
            as_float = [np.maximum(np.abs(a.astype(np.float64)), 1.0) for a in arrays]
            bound = np.broadcast_to(np.asarray(self._bound(*as_float), dtype=np.float64), shape)
            unsafe = ~(bound < SAFE_BOUND)  # NaN-proof
            if not unsafe.any():  # the peaks came from different entries; each entry is safe
                result = self._exact(*[a.astype(np.int64, copy=False) for a in arrays])
                return np.broadcast_to(np.asarray(result, dtype=np.int64), shape).copy()
            if self.overflow == "raise":
                raise OverflowError(
                    f"{self.expr} may exceed int64 for some inputs (bound {float(bound.max()):.3g} >= 2**62); "
                    "use overflow='object' for exact Python ints"
                )
        exact = np.broadcast_to(np.asarray(self._exact(*[a.astype(object) for a in arrays]), dtype=object), shape)
        if self.overflow == "raise":  # Python-int inputs: raise only if a result does not fit
            if any(not -(2**63) <= v < 2**63 for v in exact.flat):
                raise OverflowError(f"{self.expr} exceeds int64 for some inputs; use overflow='object'")
            return exact.astype(np.int64)
        return exact.copy()


def vectorize(expr: Any, symbols: Sequence[sympy.Symbol] | None = None, *, overflow: str = "object") -> Vectorized:
    """Compile a count or cost for exact evaluation over NumPy arrays of sizes.

    Parameters
    ----------
    expr : sympy.Expr, or an object with ``.count`` (a ``derive`` stack with symbolic sizes)
        An integer polynomial in the size symbols.
    symbols : sequence of sympy.Symbol, optional
        Argument order; default: the free symbols sorted by name.
    overflow : {"object", "raise"}, default "object"
        What to do with entries that could exceed int64: compute them exactly with Python
        ints (the result is then an ``object`` array), or raise :class:`OverflowError`.

    Returns
    -------
    Vectorized
        Call it with arrays (or ints) positionally or by symbol name.

    Raises
    ------
    TypeError
        ``expr`` is not an integer polynomial in ``symbols``; ``symbols`` is not a list or tuple of
        ``sympy.Symbol``.
    ValueError
        Unknown ``overflow``; ``symbols`` misses a free symbol of ``expr``.
    """
    if overflow not in ("object", "raise"):
        raise ValueError(f"overflow must be 'object' or 'raise', got {overflow!r}")
    if not isinstance(expr, (sympy.Basic, int)):
        expr = getattr(expr, "count", expr)
    if isinstance(expr, bool) or not isinstance(expr, (sympy.Expr, int)):
        raise TypeError(f"expr must be a SymPy expression or have .count, got {type(expr).__name__}")
    expr = sympy.expand(as_expr(expr))
    free = sorted(expr.free_symbols, key=lambda s: s.name)
    if symbols is not None and (isinstance(symbols, (str, bytes)) or not isinstance(symbols, (list, tuple))):
        raise TypeError(f"symbols must be a list or tuple of sympy.Symbol, got {type(symbols).__name__}")
    symbols = tuple(free) if symbols is None else tuple(symbols)
    bad = [s for s in symbols if not isinstance(s, sympy.Symbol)]
    if bad:
        raise TypeError(f"symbols must be sympy.Symbol objects (strings are never parsed), got {type(bad[0]).__name__}")
    missing = set(free) - set(symbols)
    if missing:
        raise ValueError(f"symbols must include every free symbol; missing {sorted(map(str, missing))}")
    return Vectorized(expr, symbols, overflow)
