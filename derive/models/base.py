"""What every non-recurrent layer of :mod:`derive.models` shares: kept arguments, checks, the symbolic formula.

A layer keeps the arguments it was made with (:meth:`Layer._keep`); its closed form is the same
layer remade with each size argument replaced by a letter (``Linear(I, O).count`` = ``I*O + O``).
The helpers the Keras mirror needs live below the readers and are re-exported here:
:func:`check_kwargs`, :func:`snake`, :data:`KERAS_COMMON` (:mod:`derive.frameworks.keras.base`)
and :func:`conv_length` (:mod:`derive.layers.conv`); :func:`remembered` is the one formula cache,
:func:`derive.tree.closed_form`.
"""

from __future__ import annotations

from typing import Any

import sympy

from ..engine import validate
from ..engine.symbols import plain, size_symbols
from ..frameworks.keras.base import KERAS_COMMON, check_kwargs, snake
from ..layers.conv import conv_length
from ..tree import closed_form

__all__ = ["Layer", "numel", "letters", "check_kwargs", "snake", "conv_length", "KERAS_COMMON", "remembered"]


def remembered(key: Any, compute: Any) -> Any:
    """A closed form computed once per key (a 1,000-layer model repeats a few layer kinds).

    Parameters
    ----------
    key : hashable
        The layer's class and its arguments with every size that becomes a letter replaced by
        the letter: two layers with equal keys have the same closed form.
    compute : callable () -> sympy.Expr
        Computes it on a miss.

    Returns
    -------
    sympy.Expr or int
        As :func:`derive.tree.closed_form` (an unhashable key is computed every time).
    """
    return closed_form(key, compute)


def numel(shape: tuple) -> Any:
    """Product of a shape's dimensions (1 for a scalar ``()``), an int when every dimension is.

    Parameters
    ----------
    shape : tuple of int or sympy.Expr

    Returns
    -------
    int or sympy.Expr

    Examples
    --------
    >>> numel((3, 4)), numel(())
    (12, 1)
    """
    return plain(sympy.expand(sympy.Mul(*shape))) if shape else 1


def letters(names: str) -> dict[str, sympy.Symbol]:
    """Letter -> positive-integer symbol, e.g. ``letters("I O")``.

    Parameters
    ----------
    names : str
        Space-separated letters.

    Returns
    -------
    dict of str to sympy.Symbol
    """
    return {s.name: s for s in size_symbols(names)}


class Layer:
    """A layer without recurrence: named weights of known shapes.

    Subclasses set ``SIZES`` (constructor argument -> letter of the closed form) and call
    :meth:`_keep` with their arguments.
    """

    SIZES: dict[str, str] = {}
    _arguments: dict[str, Any]

    def _keep(self, arguments: dict[str, Any]) -> None:
        self._arguments = {k: v for k, v in arguments.items() if k not in ("self", "__class__")}

    def _size(self, name: str, value: Any, minimum: int = 1) -> Any:
        return validate.size(name, value, minimum=minimum)

    def _symbolic_key(self) -> tuple[Any, dict[str, Any]] | None:
        """A key naming the closed form (class, arguments with sizes as letters) and the letters' values.

        None when the layer does not keep its arguments (its closed form is not remembered).
        """
        if not self._arguments:
            return None
        values: dict[str, Any] = {}
        for argument, letter in self.SIZES.items():  # in the order _symbolic gives them
            value = self._arguments.get(argument)
            if isinstance(value, int) and not isinstance(value, bool):
                values[letter] = value
        parts = tuple(
            (argument, "=" + self.SIZES[argument] if self.SIZES.get(argument) in values else repr(value))
            for argument, value in sorted(self._arguments.items())
        )
        return (type(self), parts), values

    def _symbolic(self) -> tuple[Layer, dict[str, Any]]:
        """The same layer with every int size argument replaced by its letter; the letters' values."""
        arguments = dict(self._arguments)
        extra = arguments.pop("kwargs", {}) or {}
        values: dict[str, Any] = {}
        for argument, letter in self.SIZES.items():
            value = arguments.get(argument)
            if isinstance(value, int) and not isinstance(value, bool):
                arguments[argument] = size_symbols(letter)[0]
                values[letter] = value
        return type(self)(**arguments, **extra), values

    def __repr__(self) -> str:
        parts = [f"{k}={v!r}" for k, v in self._arguments.items() if k != "kwargs"]
        return f"{type(self).__name__}({', '.join(parts)})"
