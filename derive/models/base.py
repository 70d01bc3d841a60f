"""What every non-recurrent layer of :mod:`derive.models` shares: kept arguments, checks, the symbolic formula.

A layer keeps the arguments it was made with (:meth:`Layer._keep`); its closed form is the same
layer remade with each size argument replaced by a letter (``Linear(I, O).count`` = ``I*O + O``).
"""

from __future__ import annotations

import math
import re
from typing import Any

import sympy

from ..engine import validate
from ..engine.symbols import plain, size_symbols

__all__ = ["Layer", "numel", "letters", "check_kwargs", "snake", "conv_length", "KERAS_COMMON", "remembered"]

_FORMULAS: dict[Any, Any] = {}
_MAX_FORMULAS = 4096


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
    """
    try:
        return _FORMULAS[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable argument (a list): not remembered
        return compute()
    value = compute()
    if len(_FORMULAS) >= _MAX_FORMULAS:
        _FORMULAS.clear()
    _FORMULAS[key] = value
    return value


#: Keyword arguments every Keras layer takes (``keras/src/layers/layer.py``), plus the Keras 2 input
#: arguments derive reads as the model's input (``batch_input_shape``, ``input_length``).
KERAS_COMMON = frozenset(
    {
        "name",
        "dtype",
        "trainable",
        "autocast",
        "input_shape",
        "input_dim",
        "batch_input_shape",
        "batch_size",
        "input_length",
    }
)


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


def snake(name: str) -> str:
    """Keras' automatic layer name for a class name (``keras/src/utils/naming.py``, ``to_snake_case``).

    Parameters
    ----------
    name : str
        A class name, e.g. ``"GlobalAveragePooling1D"``.

    Returns
    -------
    str

    Examples
    --------
    >>> snake("GlobalAveragePooling1D"), snake("LSTM"), snake("ConvLSTM2D"), snake("SimpleRNN")
    ('global_average_pooling1d', 'lstm', 'conv_lstm2d', 'simple_rnn')
    """
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


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


def check_kwargs(cls_name: str, kwargs: dict, allowed: frozenset[str]) -> None:
    """Refuse an unknown keyword as the framework does (TypeError naming it).

    Parameters
    ----------
    cls_name : str
        The layer's class name, for the message.
    kwargs : dict
        The extra keywords received.
    allowed : frozenset of str
        Keywords accepted and ignored.

    Raises
    ------
    TypeError
        A keyword not in ``allowed``, or ``**`` unpacking (whose keys derive cannot see).
    """
    if "**" in kwargs:
        raise TypeError(f"{cls_name}: keyword unpacking (**kwargs) hides the arguments; write them out")
    unknown = sorted(set(kwargs) - allowed)
    if unknown:
        raise TypeError(f"Unrecognized keyword arguments passed to {cls_name}: {unknown}")


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


def conv_length(length: Any, kernel: Any, stride: Any, padding: Any, dilation: Any = 1) -> Any:
    """Output length of a convolution or pooling along one axis (None when unknown).

    Parameters
    ----------
    length : int, sympy.Expr or None
        Input length.
    kernel, stride, dilation : int
    padding : {"valid", "same", "causal"} or int
        Keras' names, or torch's explicit zero padding on each side.

    Returns
    -------
    int, sympy.Expr or None

    Examples
    --------
    >>> conv_length(100, 3, 1, "valid"), conv_length(100, 3, 2, "same"), conv_length(None, 3, 1, "valid")
    (98, 50, None)
    """
    if length is None or not all(isinstance(v, int) for v in (kernel, stride, dilation)):
        return None
    if padding in ("same", "causal"):
        if isinstance(length, int):
            return math.ceil(length / stride)
        return sympy.ceiling(length / stride)
    span = dilation * (kernel - 1) + 1
    pad = 2 * padding if isinstance(padding, int) else 0
    result = (length + pad - span) // stride + 1
    return plain(result)
