"""The layers of a Keras model read from a config (and the input shape a Sequential is built on).

A :class:`Node` is a layer as the model names it, with the module (:class:`derive.tree.Module`)
its first build gave (:mod:`derive.read.configs.keras_program`); :class:`Unknown` a layer derive does
not know (not counted); :class:`SequentialLayer` a Sequential used as a layer; :func:`_start` the
input shape of a Sequential, from the code or config, ``input_dim``, or an Embedding's token ids
(shared with the code reader, :mod:`derive.read.code.keras.reader`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...frameworks.keras.base import snake, the_count
from ...frameworks.keras.layer import KerasLayer
from ...frameworks.keras.recurrent_base import Recurrent
from ...tree import Formula, Module, count
from ..source import Call, SourceError, clean

__all__ = ["Node", "Unknown", "SequentialLayer"]


class Unknown(KerasLayer):
    """A layer derive does not know (``--partial``): no count, output unknown.

    Parameters
    ----------
    call : Call
        The constructor call as written.
    """

    def __init__(self, call: Call) -> None:
        self._keep({})
        self.call = call
        self.name = snake(call.name)

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """Nothing known: a part not counted, its output unknown."""
        return Module(self.name, clean(self.call.name, 60), counted=False, note="unknown layer, not counted"), (
            Ellipsis,
            None,
        )


class SequentialLayer(KerasLayer):
    """A ``Sequential`` used as a layer of another model: its layers in turn.

    Parameters
    ----------
    nodes : list of Node
        Its layers, in order.
    name : str
        The layer name (Keras' ``sequential``, ``sequential_1``, ...).
    """

    def __init__(self, nodes: list[Node], name: str) -> None:
        self._keep({})
        self.nodes, self.name = nodes, name

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """Every inner layer's module, named by the inner layer, as its children; the last output."""
        children = []
        shape = input_shape
        for node in self.nodes:
            inner, shape = node.layer.build(shape)
            children.append(inner.replace(name=node.name))
        return Module(self.name, "Sequential", children=tuple(children), sep="/", row=True), shape

    def recipe(self, input_shape: Any, module: Module) -> Formula:
        """The count (no single closed form), shown as the formula.

        Parameters
        ----------
        input_shape : tuple
        module : derive.tree.Module

        Returns
        -------
        derive.tree.Formula
        """
        return Formula(the_count, (count(module),))


@dataclass(eq=False)
class Node:
    """A layer of the model with its name, the call that made it, and what building it gave.

    Parameters
    ----------
    layer : Any
        The layer (of :mod:`derive.keras`: a :class:`~derive.frameworks.keras.layer.KerasLayer`
        or a recurrent layer).
    call : Call
        The constructor call as written.
    name : str
        The Keras layer name (``lstm``, ``lstm_1``, ...).
    type : str
        The class name (``LSTM``).
    module : derive.tree.Module, optional
        Its weights, closed form and output shape, once built (the first build fixes them).
    input_shape, output_shape : Any, optional
        Shapes without the batch axis, once built.
    error : str, optional
        Why it could not be built (``--partial``).
    """

    layer: Any
    call: Call
    name: str
    type: str
    module: Module | None = None
    input_shape: Any = None
    output_shape: Any = None
    error: str = ""


def _mirror(node: Any) -> Any:
    """The mirror's layer of a config's :class:`Node` or of a code's layer (``mirror``)."""
    return node.mirror if hasattr(node, "mirror") else node.layer


def _features(node: Any, shape: tuple) -> Any:
    layer = _mirror(node)
    if isinstance(layer, Recurrent):
        return layer.features(shape)
    if getattr(layer, "data_format", None) == "channels_first":
        return shape[0]
    return shape[-1] if shape else None


def _start(nodes: list[Any], shape: tuple | None, input_dim: Any, notes: list[str]) -> tuple:
    """The input shape (no batch axis) a Sequential is built on: the code's (checked against
    ``input_dim``), one ``input_dim`` gives, or token ids for an Embedding; else refused."""
    first = nodes[0]
    if shape is not None:
        if input_dim is not None:
            if first.type == "Embedding":
                raise SourceError(
                    f"input_dim={input_dim} does not apply: the model starts with an Embedding, "
                    "whose input is token ids"
                )
            features = _features(first, shape)
            if features != input_dim:
                raise SourceError(
                    f"input_dim={input_dim} contradicts the code: its input shape "
                    f"{(None, *shape)} gives {first.name} {features} input features"
                )
        return shape
    if input_dim is not None:
        layer = _mirror(first)
        if first.type == "Embedding":
            raise SourceError(
                f"input_dim={input_dim} does not apply: the model starts with an Embedding, whose input is token ids"
            )
        if isinstance(layer, Recurrent):
            rank = layer.input_rank - 1
            if layer.data_format == "channels_first":
                return (None, input_dim) + (None,) * (rank - 2)
            return (None,) * (rank - 1) + (input_dim,)
        return (Ellipsis, input_dim)
    if first.type == "Embedding":
        notes.append(
            "no input shape given: the Embedding's input is taken as (batch, time) token ids; "
            "the counts do not depend on it"
        )
        return (None,)
    raise SourceError(
        f"--input-dim is required, or the input shape in the code: write input_shape=(T, F) on the first layer "
        f"({first.name}), start with Input(shape=(T, F)), or give --input-dim"
    )
