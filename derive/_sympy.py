"""SymPy, imported when a formula is first built — never for a count whose sizes are ints.

``from derive._sympy import sympy`` gives an object that stands for the ``sympy`` module. Reading any
attribute of it imports SymPy and returns the real attribute, except for the classes derive tests
values against (:data:`DEFERRED`: ``sympy.Basic``, ``sympy.Expr``, ``sympy.Symbol`` ...): those come
back as a stand-in that imports SymPy only when it is called, subclassed or read from, and that
answers ``isinstance(value, sympy.Expr)`` with False, without importing anything, while SymPy is not
imported — no value can be a SymPy object before SymPy exists. A count with int sizes therefore runs
every ``isinstance`` test derive makes and never imports SymPy (0.6 s of a process's start);
symbols, expressions and closed forms import it on first use.

>>> import sys
>>> from derive._sympy import sympy, loaded
>>> isinstance(3, sympy.Expr)
False
>>> sympy.Symbol("H") + 1
H + 1
>>> loaded()
True
"""

from __future__ import annotations

import functools
import importlib
import sys
from typing import Any

__all__ = ["sympy", "loaded", "function", "symbol", "DEFERRED"]

#: SymPy's classes that stay stand-ins until used: the ones derive's ``isinstance`` tests and
#: module-level names refer to.
DEFERRED = frozenset(
    {
        "Add",
        "Basic",
        "BlockMatrix",
        "Expr",
        "Float",
        "Function",
        "HadamardPower",
        "HadamardProduct",
        "Integer",
        "MatAdd",
        "MatMul",
        "MatPow",
        "MatrixBase",
        "MatrixExpr",
        "MatrixSymbol",
        "Max",
        "Min",
        "Mul",
        "Number",
        "OneMatrix",
        "Piecewise",
        "Pow",
        "Rational",
        "Symbol",
        "Transpose",
        "ZeroMatrix",
        "ceiling",
        "floor",
        "Identity",
        "Mod",
        "Heaviside",
        "ElementwiseApplyFunction",
        "tanh",
        "exp",
        "log",
        "sqrt",
        "Abs",
        "sign",
    }
)


def loaded() -> bool:
    """Whether SymPy has been imported (by derive or by anyone).

    Returns
    -------
    bool
    """
    return "sympy" in sys.modules


def _real(path: str) -> Any:
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


class _Deferred:
    """A SymPy class named by ``path`` (``"sympy.Expr"``), imported when first used."""

    __slots__ = ("_path",)

    def __init__(self, path: str) -> None:
        self._path = path

    def __instancecheck__(self, value: object) -> bool:
        if not loaded():
            return False
        return isinstance(value, _real(self._path))

    def __subclasscheck__(self, cls: type) -> bool:
        if not loaded():
            return False
        return issubclass(cls, _real(self._path))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _real(self._path)(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(_real(self._path), name)

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type, ...]:
        return (_real(self._path),)

    def __eq__(self, other: object) -> bool:
        return loaded() and _real(self._path) == other

    def __hash__(self) -> int:
        return hash(self._path)

    def __repr__(self) -> str:
        return f"<deferred {self._path}>"


class _SymPy:
    """The ``sympy`` module, imported on first use (see the module's docstring)."""

    __slots__ = ()

    #: Where each deferred class lives (all at SymPy's top level but these).
    _HOMES = {"ElementwiseApplyFunction": "sympy.matrices.expressions.applyfunc"}

    def __getattr__(self, name: str) -> Any:
        if name in DEFERRED:
            if loaded():
                return _real(f"{self._HOMES.get(name, 'sympy')}.{name}")
            return _Deferred(f"{self._HOMES.get(name, 'sympy')}.{name}")
        return getattr(importlib.import_module("sympy"), name)

    def __repr__(self) -> str:
        return "<sympy, imported on first use>" if not loaded() else repr(sys.modules["sympy"])


#: Stands for the ``sympy`` module (see the module's docstring).
sympy: Any = _SymPy()


class _DeferredFunction:
    """``sympy.Function(name)``, an undefined function of the equations (σ, ReLU), made when first applied."""

    __slots__ = ("__name__", "_made")

    def __init__(self, name: str) -> None:
        self.__name__ = name
        self._made: Any = None

    def real(self) -> Any:
        """The SymPy function (SymPy imported, once).

        Returns
        -------
        sympy.FunctionClass
        """
        if self._made is None:
            self._made = importlib.import_module("sympy").Function(self.__name__)
        return self._made

    def __call__(self, *args: Any) -> Any:
        return self.real()(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real(), name)

    def __repr__(self) -> str:
        return self.__name__


def function(name: str) -> Any:
    """An undefined SymPy function named ``name``, made (and SymPy imported) when first applied.

    Parameters
    ----------
    name : str
        Its name, as printed (``"sigma"``).

    Returns
    -------
    callable
        Applied to SymPy expressions: ``sympy.Function(name)(*args)``.
    """
    return _DeferredFunction(name)


@functools.cache
def symbol(name: str, *, integer: bool = True) -> Any:
    """The positive SymPy symbol ``name`` (integer unless ``integer=False``), SymPy imported.

    SymPy caches symbols by name and assumptions: every call with the same arguments gives an equal
    symbol, so a module may name its letters without making them at its import.

    Parameters
    ----------
    name : str
    integer : bool, default True

    Returns
    -------
    sympy.Symbol
    """
    real = importlib.import_module("sympy")
    return real.Symbol(name, integer=True, positive=True) if integer else real.Symbol(name, positive=True)
