"""The layers and tensors of a Keras model read from code or a config, and their rows.

A :class:`Node` is a layer as the model names it, with the module (:class:`derive.tree.Module`)
its first build gave; a :class:`Tensor` a value of the functional API. The rows of a model are
the rows of its layers' modules (:func:`derive.models.report.rows`), one per layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..frameworks.keras.base import snake, the_count
from ..frameworks.keras.core import InputLayer
from ..frameworks.keras.layer import KerasLayer
from ..frameworks.keras.recurrent_base import Recurrent
from ..tree import Formula, Module, count
from .report import Row, rows
from .source import Call, SourceError, clean

__all__ = ["Node", "Tensor", "Unknown", "SequentialLayer"]


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


@dataclass(eq=False)
class Tensor:
    """A symbolic tensor of the functional API: shape (no batch axis), producer, inputs.

    Parameters
    ----------
    shape : Any
        Without the batch axis.
    node : Node or None
        The layer that produced it (``None`` for an ``Input``).
    inputs : list of Tensor, optional
        The model inputs it depends on.
    """

    shape: Any
    node: Node | None
    inputs: list[Tensor] = field(default_factory=list)


def _declared(node: Node) -> tuple | None:
    """The input shape a layer's own arguments give (Keras 2 and 3 spellings), or None."""
    calls = [node.call]
    inner = node.call.args[0] if node.call.args else node.call.kwargs.get("layer")
    if isinstance(inner, Call):
        calls.append(inner)
    for call in calls:
        kwargs = call.kwargs
        if isinstance(kwargs.get("batch_input_shape"), (tuple, list)):
            return tuple(kwargs["batch_input_shape"][1:])
        if isinstance(kwargs.get("input_shape"), (tuple, list)):
            return tuple(kwargs["input_shape"])
        if kwargs.get("input_dim") is not None:
            if isinstance(node.layer, Recurrent):
                return (kwargs.get("input_length"), kwargs["input_dim"])
            if call.name != "Embedding":
                return (kwargs["input_dim"],)
        if call.name == "Embedding" and kwargs.get("input_length") is not None:
            return (kwargs["input_length"],)
    return None


def _features(node: Node, shape: tuple) -> Any:
    layer = node.layer
    if isinstance(layer, Recurrent):
        return layer.features(shape)
    if getattr(layer, "data_format", None) == "channels_first":
        return shape[0]
    return shape[-1] if shape else None


def _start(nodes: list[Node], shape: tuple | None, input_dim: Any, notes: list[str]) -> tuple:
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
        layer = first.layer
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


def _module(node: Node) -> Module:
    """A layer's module as its row shows it: named as the layer; not counted when not built."""
    if node.module is None:
        return Module(node.name, node.type, counted=False, note=node.error or "not built")
    return node.module.replace(name=node.name, note=node.error)


def _rows(nodes: list[Node], partial: bool) -> list[Row]:
    """One row per layer (no InputLayer), built from its module, typed as written (``Bidirectional(LSTM)``)."""
    out = []
    for node in nodes:
        if isinstance(node.layer, InputLayer):
            continue
        for row in rows(_module(node)):
            row.type = node.type
            out.append(row)
    return out


def _tree(nodes: list[Node], name: str, type: str) -> Module:
    """The model's module: its layers' modules as children (``name`` prefixes their weights' paths)."""
    layers = tuple(_module(node) for node in nodes if not isinstance(node.layer, InputLayer))
    return Module(name, type, children=layers, sep="/")


def _flat(value: Any) -> list:
    """The items of nested lists (a model's outputs), in order."""
    if not isinstance(value, list):
        return [value]
    return [item for part in value for item in _flat(part)]


def _reachable(outputs: Any) -> set[int]:
    seen: set[int] = set()
    stack = list(outputs) if isinstance(outputs, list) else [outputs]
    while stack:
        tensor = stack.pop()
        if isinstance(tensor, list):
            stack.extend(tensor)
            continue
        if not isinstance(tensor, Tensor) or tensor.node is None:
            continue
        if id(tensor.node) not in seen:
            seen.add(id(tensor.node))
        stack.extend(tensor.inputs)
    return seen
