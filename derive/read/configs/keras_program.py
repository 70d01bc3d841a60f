"""Keras layers made from their configs: the layer factory of the config and live-object readers.

A model's config (``get_config()``, a ``.keras`` file's ``config.json``) and a live layer's config
are read into :class:`~derive.read.source.Call` s (:mod:`derive.read.configs.keras_config`);
:class:`KerasProgram` makes each layer of the Keras mirror from its call, names it as a fresh
Keras session does (``lstm``, ``lstm_1``, ...) and builds it on its input shape (the first build
fixes its weights, as in Keras). Model *code* is read by :mod:`derive.read.code.keras.reader`.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ...frameworks import keras as dk
from ...frameworks.keras.base import snake
from ...frameworks.keras.constructors import KERAS_INPUT_KWARGS, KERAS_LAYERS, KERAS_RECURRENT
from ...frameworks.keras.core import InputLayer
from ...frameworks.keras.layer import KerasLayer
from ..source import Call, Opaque, SourceError, clean
from .keras_nodes import Node, SequentialLayer, Unknown

__all__ = ["KerasProgram", "SUPPORTED"]

#: Every name a Keras model may use.
SUPPORTED = tuple(sorted({*KERAS_LAYERS, *KERAS_RECURRENT, "Input", "Sequential", "Model"}))


class KerasProgram:
    """Makes and builds the layers of a config, naming them as Keras does.

    Parameters
    ----------
    partial : bool
        Count what is known and mark unknown layers instead of refusing.
    """

    def __init__(self, partial: bool = False) -> None:
        self.partial = partial
        self.uids: dict[str, int] = defaultdict(int)
        self.notes: list[str] = []

    # -- layers --------------------------------------------------------------------------------
    def unique(self, base: str) -> str:
        """Keras' automatic name: ``lstm``, then ``lstm_1``, ... (``uniquify``).

        Parameters
        ----------
        base : str

        Returns
        -------
        str
        """
        count = self.uids[base]
        self.uids[base] += 1
        return base if count == 0 else f"{base}_{count}"

    def node(self, call: Call) -> Node:
        """Make the layer of a constructor call (nested layers first, as Keras names them).

        Parameters
        ----------
        call : Call

        Returns
        -------
        Node

        Raises
        ------
        SourceError
            An unknown name (unless partial), or arguments the layer refuses.
        """
        if call.name == "Sequential":
            nodes = self.sequential_nodes(call)
            given = call.kwargs.get("name")
            name = given if isinstance(given, str) else self.unique("sequential")
            return Node(SequentialLayer(nodes, name), call, name, "Sequential")
        if call.name not in KERAS_LAYERS and call.name not in KERAS_RECURRENT and call.name != "Input":
            if not self.partial:
                raise SourceError(
                    f"line {call.line}: unknown name {clean(call.dotted, 60)!r}; supported: "
                    f"{', '.join(SUPPORTED)} (or --partial to count the rest)"
                )
            name = self.unique(snake(call.name))
            self.notes.append(f"line {call.line}: {clean(call.name, 60)} is not known to derive: not counted")
            return Node(Unknown(call), call, name, clean(call.name, 60), error="unknown layer, not counted")
        try:
            layer, type_name = self._make(call)
        except (TypeError, ValueError) as error:
            if isinstance(error, SourceError):
                raise
            raise SourceError(f"line {call.line}: {call.name}: {error}") from None
        given = call.kwargs.get("name")
        name = (
            given
            if isinstance(given, str)
            else self.unique(layer.default_name if isinstance(layer, KerasLayer) else snake(call.name))
        )
        layer.name = name
        return Node(layer, call, name, type_name)

    def _make(self, call: Call) -> tuple[Any, str]:
        if any(isinstance(a, Opaque) and a.source.startswith("*") for a in call.args):
            raise SourceError(f"line {call.line}: {call.name}: starred arguments hide the sizes; write them out")
        if call.name == "Input":
            return InputLayer(*call.args, **call.kwargs), "InputLayer"
        if call.name == "TimeDistributed":
            inner_call = call.args[0] if call.args else call.kwargs.get("layer")
            if not isinstance(inner_call, Call):
                raise ValueError("TimeDistributed needs a layer constructor as its first argument")
            inner = self.node(inner_call)
            kwargs = {k: v for k, v in call.kwargs.items() if k != "layer"}
            return KERAS_LAYERS["TimeDistributed"](inner.layer, **kwargs), f"TimeDistributed({inner.type})"
        if call.name in KERAS_LAYERS:
            return KERAS_LAYERS[call.name](*call.args, **call.kwargs), call.name
        layer = self._recurrent(call)
        wrapped = call.args[0] if call.args else call.kwargs.get("layer")
        if call.name == "Bidirectional" and isinstance(wrapped, Call):
            return layer, f"Bidirectional({wrapped.name})"
        return layer, call.name

    def _recurrent(self, call: Call) -> Any:
        """The derive.keras object of a recurrent call; the layers a Bidirectional wraps are named
        before it, as Keras names them (``lstm``, then ``bidirectional``)."""
        args = list(call.args)
        kwargs = {k: v for k, v in call.kwargs.items() if k not in KERAS_INPUT_KWARGS}
        if call.name == "Bidirectional":
            for key, position in (("layer", 0), ("backward_layer", None)):
                inner = kwargs.get(key) if position is None or key in kwargs else (args[0] if args else None)
                if inner is None:
                    continue
                if not isinstance(inner, Call) or inner.name not in KERAS_RECURRENT[:-1]:
                    raise ValueError(
                        f"Please initialize `Bidirectional` layer with a recurrent layer instance. Received: {inner!r}"
                    )
                made = self._recurrent(inner)
                if not isinstance(inner.kwargs.get("name"), str):
                    made.name = self.unique(snake(inner.name))
                if key in kwargs:
                    kwargs[key] = made
                else:
                    args[0] = made
            return dk.Bidirectional(*args, **kwargs)
        return getattr(dk, call.name)(*args, **kwargs)

    def sequential_nodes(self, call: Call) -> list[Node]:
        """The layers of ``Sequential([...])`` (or ``layers=[...]``).

        Parameters
        ----------
        call : Call

        Returns
        -------
        list of Node

        Raises
        ------
        SourceError
            The argument is not a list of layer constructors.
        """
        items = call.args[0] if call.args else call.kwargs.get("layers", [])
        if items is None:
            items = []
        if not isinstance(items, (list, tuple)) or not all(isinstance(i, Call) for i in items):
            raise SourceError(f"line {call.line}: Sequential takes a list of layer constructors")
        return [self.node(item) for item in items]

    def build(self, layer: Node, shape: Any) -> Any:
        """Build a layer on an input shape; the first build fixes its weights.

        Parameters
        ----------
        layer : Node
        shape : tuple or list of tuple

        Returns
        -------
        tuple or list

        Raises
        ------
        SourceError
            The layer cannot be built on that input (Keras' own reason, with the line).
        """
        if isinstance(layer.layer, Unknown) or (
            isinstance(shape, tuple) and shape[-1:] == (None,) and shape[:1] == (Ellipsis,) and self.partial
        ):
            layer.error = layer.error or "input unknown (after an unknown layer)"
            return (Ellipsis, None)
        try:
            module, out = layer.layer.build(shape)
        except (TypeError, ValueError) as error:
            raise SourceError(f"line {layer.call.line}: {' '.join(str(error).split())}") from None
        if layer.module is None:
            layer.module, layer.input_shape, layer.output_shape = module, shape, out
        return out
