"""Layers applied in sequence: :class:`Sequential`, :func:`count` and :func:`tensors`.

>>> from derive.keras import LSTM, Bidirectional
>>> count([Bidirectional(LSTM(64, return_sequences=True)), LSTM(32)], 28)
68224
>>> [w.path for w in Sequential([LSTM(8)], name="model").tensors(3)][0]
'model/lstm/lstm_cell/kernel'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..._sympy import sympy
from ...engine import validate
from ...engine.symbols import Size, plain
from ...tree import Module
from ...tree import count as _count
from .base import Weight, layer_name, weights
from .recurrent_base import Recurrent
from .wrappers import Bidirectional

__all__ = ["Sequential", "count", "tensors", "sequence"]


def _layers(layers: object) -> list[Recurrent]:
    if isinstance(layers, Sequential):
        return list(layers.layers)
    if isinstance(layers, Recurrent):
        return [layers]
    if isinstance(layers, (list, tuple)) and layers and all(isinstance(x, Recurrent) for x in layers):
        return list(layers)
    raise TypeError(f"layers must be a layer of derive.keras, a non-empty list of them or a Sequential, got {layers!r}")


def _check_feeds(previous: Recurrent, layer: Recurrent) -> None:
    """Raise ValueError where Keras cannot feed ``previous``'s output to ``layer``."""
    if isinstance(previous, Bidirectional) and previous.merge_mode is None:
        raise ValueError(
            f"{previous.name} has merge_mode=None: it returns a list of two outputs, which cannot feed "
            f"{layer.name} (Keras: 'expects 1 input(s), but it received 2 input tensors')"
        )
    if previous.return_state:
        raise ValueError(
            f"{previous.name} has return_state=True: it returns a list (output and states), which "
            f"cannot feed {layer.name}"
        )
    if previous.output_rank != layer.input_rank:
        hint = (
            " (set return_sequences=True on the layer before)" if previous.output_rank == layer.input_rank - 1 else ""
        )
        raise ValueError(
            f"{layer.name} expects inputs with ndim={layer.input_rank}, but {previous.name} outputs "
            f"ndim={previous.output_rank}{hint}"
        )


def sequence(layers: Recurrent | Sequence[Recurrent] | Sequential, input_dim: Size, name: str = "") -> Module:
    """The module of one layer, or of layers applied in sequence, each built on the output of the one before.

    Parameters
    ----------
    layers : layer, list of layers, or Sequential
        Layers of this module.
    input_dim : int or sympy.Expr
        Last dimension of the first layer's input: features per time step (channels for ConvLSTM).
    name : str
        The module's name: ``""`` (a group that adds nothing to the paths) or a model's name.

    Returns
    -------
    derive.tree.Module
        A ``Sequential`` module (``sep="/"``) whose children are the layers' modules.

    Raises
    ------
    TypeError
        ``layers`` is not a layer, a list of layers or a Sequential; ``input_dim`` not an integer.
    ValueError
        ``input_dim`` <= 0; a layer that cannot feed the next one: ``Bidirectional`` with
        ``merge_mode=None`` or a layer with ``return_state=True`` (they return lists), or an
        output rank the next layer does not accept (``return_sequences=False`` before a
        recurrent layer, a ConvLSTM before an LSTM, ...), as Keras refuses them.
    """
    stack = _layers(layers)
    width: Any = validate.size("input_dim", input_dim)
    children = []
    for k, layer in enumerate(stack):
        if k:
            _check_feeds(stack[k - 1], layer)  # a list (merge_mode=None) feeds nothing: refused here
        children.append(layer.module(width))
        width = layer.output_dim(width)
    return Module(name, "Sequential", children=tuple(children), sep="/")


def tensors(layers: Recurrent | Sequence[Recurrent] | Sequential, input_dim: Size, prefix: str = "") -> list[Weight]:
    """Every weight of one layer, or of layers applied in sequence, with its Keras path and shape.

    Parameters
    ----------
    layers : layer, list of layers, or Sequential
        Layers of this module; each reads the output of the one before.
    input_dim : int or sympy.Expr
        Last dimension of the first layer's input: features per time step (channels for ConvLSTM).
    prefix : str
        Prepended to every path (a ``Sequential`` passes its name and ``/``).

    Returns
    -------
    list of Weight
        In the order of ``model.weights``.

    Raises
    ------
    TypeError, ValueError
        See :func:`sequence`.
    """
    return weights(sequence(layers, input_dim), prefix)


def count(layers: Recurrent | Sequence[Recurrent] | Sequential, input_dim: Size) -> int | sympy.Expr:
    """Number of parameters of one layer, or of layers applied in sequence.

    Parameters
    ----------
    layers : layer, list of layers, or Sequential
    input_dim : int or sympy.Expr
        Last dimension of the first layer's input (features; channels for ConvLSTM).

    Returns
    -------
    int or sympy.Expr
        An ``int`` when every size is an int, else a closed form (expanded).

    Raises
    ------
    TypeError, ValueError
        See :func:`sequence`.

    Examples
    --------
    >>> from derive.keras import LSTM, Bidirectional
    >>> count([Bidirectional(LSTM(64, return_sequences=True)), LSTM(32)], 28)
    68224
    """
    return plain(_count(sequence(layers, input_dim)))


class Sequential:
    """``keras.Sequential(layers=None, trainable=True, name=None)`` of the recurrent layers of :mod:`derive.keras`.

    The input (``keras.Input``) is not a layer here: :meth:`count` and :meth:`tensors` take its
    last dimension. Weight paths are prefixed with the model's name, as Keras does.

    Parameters
    ----------
    layers : list of layers
    trainable : bool
        Accepted and ignored.
    name : str, optional
        Default ``"sequential"``.

    Raises
    ------
    TypeError
        ``layers`` not a non-empty list of layers of this module.
    """

    def __init__(
        self,
        layers: Sequence[Recurrent] | None = None,
        trainable: bool = True,
        name: str | None = None,
    ) -> None:
        self.layers = _layers(list(layers or []))
        self.name = layer_name(name, "sequential")

    def module(self, input_dim: Size) -> Module:
        """The model's module, named as the model: its layers' modules its children.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Last dimension of the model's input.

        Returns
        -------
        derive.tree.Module
        """
        return sequence(self.layers, input_dim, self.name)

    def tensors(self, input_dim: Size) -> list[Weight]:
        """Every weight, paths prefixed with the model's name (``model.weights``); see :func:`tensors`.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Last dimension of the model's input.

        Returns
        -------
        list of Weight
        """
        return weights(self.module(input_dim))

    def count(self, input_dim: Size) -> int | sympy.Expr:
        """``model.count_params()``; see :func:`count`.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Last dimension of the model's input.

        Returns
        -------
        sympy.Expr
        """
        return count(self.layers, input_dim)

    def output_dim(self, input_dim: Size) -> Size | list[Size]:
        """Last dimension of the model's output.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Last dimension of the model's input.

        Returns
        -------
        int, sympy.Expr or list
        """
        sequence(self.layers, input_dim)  # checks that every layer can feed the next
        width: Any = input_dim
        for layer in self.layers:
            width = layer.output_dim(width)
        return width

    def __repr__(self) -> str:
        return f"Sequential([{', '.join(repr(x) for x in self.layers)}])"
