"""Layers applied in sequence: :class:`Sequential`, :func:`count` and :func:`tensors`.

The first layer's input is the model's, as Keras' ``Sequential`` reads it (``input_dim=``,
``input_shape=``, ``batch_input_shape=`` on the first layer); a later layer's is not read (Keras
builds it on what the layer before outputs).

>>> from derive.keras import LSTM, Bidirectional
>>> Sequential([LSTM(64, input_dim=28, return_sequences=True), LSTM(32)]).count
36224
>>> count([Bidirectional(LSTM(64, return_sequences=True)), LSTM(32)], 28)
68224
>>> [w.path for w in Sequential([LSTM(8, input_dim=3)], name="model").tensors()][0]
'model/lstm/lstm_cell/kernel'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..._sympy import sympy
from ...engine.symbols import Size, plain
from ...tree import Module
from ...tree import count as _count
from .base import InputCounted, Weight, layer_name, weights
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


def _check_stack(stack: list[Recurrent]) -> None:
    """Raise ValueError where a layer cannot feed the next one (:func:`_check_feeds`)."""
    for k in range(1, len(stack)):
        _check_feeds(stack[k - 1], stack[k])  # a list (merge_mode=None) feeds nothing: refused here


def sequence(
    layers: Recurrent | Sequence[Recurrent] | Sequential, input_dim: Size | None = None, name: str = ""
) -> Module:
    """The module of one layer, or of layers applied in sequence, each built on the output of the one before.

    Parameters
    ----------
    layers : layer, list of layers, or Sequential
        Layers of this module.
    input_dim : int or sympy.Expr, optional
        Last dimension of the first layer's input: features per time step (channels for ConvLSTM);
        default the input the first layer was given (``input_dim=``, ``input_shape=``, ...).
    name : str
        The module's name: ``""`` (a group that adds nothing to the paths) or a model's name.

    Returns
    -------
    derive.tree.Module
        A ``Sequential`` module (``sep="/"``) whose children are the layers' modules.

    Raises
    ------
    TypeError
        ``layers`` is not a layer, a list of layers or a Sequential; ``input_dim`` not an integer,
        or not given when the first layer was given no input.
    ValueError
        ``input_dim`` <= 0 or other than the first layer's given input; a layer that cannot feed
        the next one: ``Bidirectional`` with ``merge_mode=None`` or a layer with
        ``return_state=True`` (they return lists), or an output rank the next layer does not accept
        (``return_sequences=False`` before a recurrent layer, a ConvLSTM before an LSTM, ...), as
        Keras refuses them.
    """
    stack = _layers(layers)
    _check_stack(stack)
    width: Any = stack[0].input_of(input_dim)
    children = []
    for layer in stack:
        children.append(layer._module(width))  # a later layer's own input is not read, as in Keras
        width = layer.output_dim(width)
    return Module(name, "Sequential", children=tuple(children), sep="/")


def tensors(
    layers: Recurrent | Sequence[Recurrent] | Sequential, input_dim: Size | None = None, prefix: str = ""
) -> list[Weight]:
    """Every weight of one layer, or of layers applied in sequence, with its Keras path and shape.

    Parameters
    ----------
    layers : layer, list of layers, or Sequential
        Layers of this module; each reads the output of the one before.
    input_dim : int or sympy.Expr, optional
        Last dimension of the first layer's input: features per time step (channels for ConvLSTM);
        default the input the first layer was given.
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


def count(layers: Recurrent | Sequence[Recurrent] | Sequential, input_dim: Size | None = None) -> int | sympy.Expr:
    """Number of parameters of one layer, or of layers applied in sequence.

    ``derive.keras.count(layer, input_dim)`` counts a layer on an input; a layer given its input
    (``LSTM(128, input_dim=28)``) has its count as ``.count``, the spelling of every derive object.

    Parameters
    ----------
    layers : layer, list of layers, or Sequential
    input_dim : int or sympy.Expr, optional
        Last dimension of the first layer's input (features; channels for ConvLSTM); default the
        input the first layer was given.

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
    >>> count(LSTM(128), 28) == LSTM(128, input_dim=28).count == 80384
    True
    """
    return plain(_count(sequence(layers, input_dim)))


class Sequential(InputCounted):
    """``keras.Sequential(layers=None, trainable=True, name=None)`` of the recurrent layers of :mod:`derive.keras`.

    The input (``keras.Input``) is not a layer here: the model's input is its first layer's, given as
    Keras' ``Sequential`` reads it (``LSTM(64, input_dim=28)``, ``input_shape=(steps, 28)``), and
    then :attr:`count` is ``model.count_params()``; :meth:`module` and :meth:`tensors` take its last
    dimension otherwise. Weight paths are prefixed with the model's name, as Keras does.

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

    Examples
    --------
    >>> from derive.keras import LSTM
    >>> Sequential([LSTM(64, input_dim=28, return_sequences=True), LSTM(32)]).count
    36224
    """

    INPUT_HINT = "on its first layer: input_dim=<features per time step>, or input_shape=(steps, features)"

    def __init__(
        self,
        layers: Sequence[Recurrent] | None = None,
        trainable: bool = True,
        name: str | None = None,
    ) -> None:
        self.layers = _layers(list(layers or []))
        self.name = layer_name(name, "sequential")

    @property
    def input_given(self) -> Any:  # type: ignore[override]
        """The model's input: its first layer's (:attr:`derive.frameworks.keras.base.InputCounted.input_given`)."""
        return self.layers[0].input_given

    def input_of(self, input_dim: Any) -> Any:
        """The features the first layer reads: ``input_dim``, else its given input's.

        Parameters
        ----------
        input_dim : int, sympy.Expr or None

        Returns
        -------
        int or sympy.Expr

        Raises
        ------
        TypeError, ValueError
            As :meth:`derive.frameworks.keras.base.InputCounted.input_of` of the first layer.
        """
        return self.layers[0].input_of(input_dim)

    def _spelled(self, input_dim: Any) -> str:
        first = self.layers[0]._spelled(input_dim)
        return f"Sequential([{', '.join([first] + [repr(x) for x in self.layers[1:]])}])"

    def _input_hint(self) -> str:
        return f"{self._spelled('...')} ({self.INPUT_HINT})"

    def _count_on(self, input_dim: Size | None) -> int | sympy.Expr:
        return count(self.layers, input_dim)

    def module(self, input_dim: Size | None = None) -> Module:
        """The model's module, named as the model: its layers' modules its children.

        Parameters
        ----------
        input_dim : int or sympy.Expr, optional
            Last dimension of the model's input; default the first layer's given input.

        Returns
        -------
        derive.tree.Module

        Raises
        ------
        TypeError, ValueError
            See :func:`sequence`.
        """
        return sequence(self.layers, input_dim, self.name)

    def tensors(self, input_dim: Size | None = None) -> list[Weight]:
        """Every weight, paths prefixed with the model's name (``model.weights``); see :func:`tensors`.

        Parameters
        ----------
        input_dim : int or sympy.Expr, optional
            Last dimension of the model's input; default the first layer's given input.

        Returns
        -------
        list of Weight
        """
        return weights(self.module(input_dim))

    def output_dim(self, input_dim: Size | None = None) -> Size | list[Size]:
        """Last dimension of the model's output.

        Parameters
        ----------
        input_dim : int or sympy.Expr, optional
            Last dimension of the model's input (checked; the output's width does not depend on it).

        Returns
        -------
        int, sympy.Expr or list

        Raises
        ------
        ValueError
            A layer that cannot feed the next one (see :func:`sequence`); ``input_dim`` other than
            the first layer's given input.
        """
        _check_stack(self.layers)
        width: Any = None if input_dim is None else self.input_of(input_dim)
        for layer in self.layers:
            width = layer.output_dim(width)
        return width

    def __repr__(self) -> str:
        return f"Sequential([{', '.join(repr(x) for x in self.layers)}])"
