"""The size symbols every formula is written in.

All are SymPy symbols with ``integer=True, positive=True``, so SymPy may
simplify with them freely and a substituted value is an exact integer.

| symbol | framework argument | meaning |
|--------|--------------------|---------|
| ``I``  | ``input_size``     | features of the input at one time step |
| ``H``  | ``hidden_size``    | features of the hidden (and cell) state, Keras ``units`` |
| ``L``  | ``num_layers``     | recurrent layers stacked on each other |
| ``P``  | ``proj_size``      | features of the projected hidden state (LSTM only) |
| ``T``  | sequence length    | time steps (used by cost formulas) |

Notation used on the site (see the project's ``REFERENCE.md``): ``G`` gate blocks
(RNN 1, GRU 3, LSTM 4) and ``D`` directions (1 or 2) are small integers fixed by
the cell and the wiring, so they enter formulas as numbers, not symbols.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from .._sympy import sympy

if TYPE_CHECKING:
    import sympy as _sympy_types

__all__ = ["I", "H", "L", "P", "T", "Size", "Letters", "size_symbols", "as_expr", "plain", "product", "total", "equal"]

#: A size: an int or a SymPy expression (every framework argument that is a size).
Size: TypeAlias = "int | _sympy_types.Expr"

_T = TypeVar("_T")

#: The size symbols' meanings (each made, and SymPy imported, when first read: ``derive.engine.symbols.H``).
_MEANINGS = {
    "I": "Input size (``input_size``; Keras: the last axis of the input): features per time step.",
    "H": "Hidden size (``hidden_size``; Keras ``units``): features of the hidden and cell state.",
    "L": "Number of stacked layers (``num_layers``).",
    "P": "Projection size (``proj_size``, LSTM only): features of the projected hidden state.",
    "T": "Sequence length: time steps (used by cost formulas).",
}

if TYPE_CHECKING:
    #: Input size (``input_size``; Keras: the last axis of the input): features per time step.
    I: _sympy_types.Symbol
    #: Hidden size (``hidden_size``; Keras ``units``): features of the hidden and cell state.
    H: _sympy_types.Symbol
    #: Number of stacked layers (``num_layers``).
    L: _sympy_types.Symbol
    #: Projection size (``proj_size``, LSTM only): features of the projected hidden state.
    P: _sympy_types.Symbol
    #: Sequence length: time steps (used by cost formulas).
    T: _sympy_types.Symbol


def __getattr__(name: str) -> Any:
    """The size symbols I, H, L, P, T: positive-integer SymPy symbols, made (SymPy imported) on first use."""
    if name in _MEANINGS:
        symbol = sympy.Symbol(name, integer=True, positive=True)
        globals()[name] = symbol
        return symbol
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def size_symbols(names: str) -> tuple[sympy.Symbol, ...]:
    """Make further positive-integer size symbols, e.g. ``size_symbols("I_1 H_1")``.

    Parameters
    ----------
    names : str
        Space- or comma-separated symbol names, as for :func:`sympy.symbols`.

    Returns
    -------
    tuple of sympy.Symbol
        Symbols with ``integer=True, positive=True``.
    """
    made = sympy.symbols(names, integer=True, positive=True, seq=True)
    return tuple(made)


def as_expr(value: object) -> sympy.Expr:
    """An int as a ``sympy.Integer``; a SymPy expression unchanged. Strings are never parsed.

    Parameters
    ----------
    value : int or sympy.Expr

    Returns
    -------
    sympy.Expr

    Raises
    ------
    TypeError
        ``value`` is neither an int (bools excluded) nor a SymPy expression.
    """
    if isinstance(value, sympy.Expr):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return sympy.Integer(value)
    raise TypeError(f"expected an int or a SymPy expression, got {type(value).__name__}")


def plain(value: _T) -> _T | int:
    """A Python int for an integer (``sympy.Integer`` included); anything else unchanged.

    Parameters
    ----------
    value : int, sympy.Expr or object

    Returns
    -------
    int or object
    """
    if isinstance(value, sympy.Basic) and value.is_Integer:
        return int(value)
    return value


def product(sizes: Iterable[Any]) -> Any:
    """The product of ``sizes``: an int when every one is an int (no SymPy), else ``sympy.Mul``.

    Parameters
    ----------
    sizes : iterable of int or sympy.Expr

    Returns
    -------
    int or sympy.Expr

    Examples
    --------
    >>> product((3, 3)), product(())
    (9, 1)
    """
    values = tuple(sizes)
    if all(type(v) is int for v in values):
        return math.prod(values)
    return sympy.Mul(*values)


def total(sizes: Iterable[Any]) -> Any:
    """The sum of ``sizes``: an int when every one is an int (no SymPy), else ``sympy.Add``.

    Parameters
    ----------
    sizes : iterable of int or sympy.Expr

    Returns
    -------
    int or sympy.Expr

    Examples
    --------
    >>> total((3, 4))
    7
    """
    values = tuple(sizes)
    if all(type(v) is int for v in values):
        return sum(values)
    return sympy.Add(*values)


def equal(a: Any, b: Any) -> bool:
    """Whether two sizes are provably equal: int comparison for ints, the expanded difference otherwise.

    Parameters
    ----------
    a, b : int or sympy.Expr

    Returns
    -------
    bool

    Examples
    --------
    >>> from derive.engine.symbols import H, I
    >>> equal(6, 2 * 3), equal(I, H)
    (True, False)
    """
    if type(a) is int and type(b) is int:
        return a == b
    return bool(sympy.expand(a - b) == 0)


class Letters(Mapping[str, Any]):
    """The size symbols by name (``{"I": I, "H": H, ...}``), each made (SymPy imported) when first read.

    ``"H" in letters`` and iterating the names import nothing: a reader of pasted text asks whether a
    name is a size symbol before it needs the symbol.

    Parameters
    ----------
    names : iterable of str
        Names of :data:`_MEANINGS` (``"I"``, ``"H"``, ``"L"``, ``"P"``, ``"T"``).

    Examples
    --------
    >>> letters = Letters("IH")
    >>> "H" in letters, sorted(letters)
    (True, ['H', 'I'])
    >>> letters["H"] + 1
    H + 1
    """

    def __init__(self, names: Iterable[str]) -> None:
        self._names = tuple(names)

    def __getitem__(self, name: str) -> Any:
        if name not in self._names:
            raise KeyError(name)
        return __getattr__(name)

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)
