"""Keras' model-making calls read from code: ``Sequential``, ``Model(inputs, outputs)``, ``Lambda`` and
``Variable`` (``keras/src/models/``, ``keras/src/layers/core/lambda_layer.py``, ``keras/src/backend/common/
variables.py``), each as the semantics' ``call_ref`` dispatches to it.
"""

from __future__ import annotations

import ast
from typing import Any

from .frame import source_of
from .keras_construct import layer_name
from .keras_graph import flat_tensors, functional_layers
from .keras_layer_api import make_weight, start_sequential
from .keras_objects import KLayer, KTensor, KWeight
from .values import Unknown

__all__ = ["make_sequential", "make_functional", "make_lambda", "make_variable"]


def make_sequential(core: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> KLayer:
    """``keras.Sequential(layers, name=...)``: a model started with its layers (added as Keras adds them).

    Parameters
    ----------
    core : Interpreter
        The reader (its semantics' scopes, its refusals).
    args : list
        The call's positional arguments, as read.
    kwargs : dict
        The call's keyword arguments, as read.
    node : ast.AST
        The call (its line for refusals and rows).

    Returns
    -------
    KLayer
        The model (kind ``"sequential"``).
    """
    model = KLayer("Sequential", "", "sequential", line=getattr(node, "lineno", 0))
    items = args[0] if args else kwargs.get("layers")
    model.name = layer_name(core, kwargs.get("name", args[2] if len(args) > 2 else None), "sequential", node)
    start_sequential(core, model, items, node)
    return model


def make_functional(core: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> KLayer:
    """``keras.Model(inputs, outputs)``: a functional model of the tensors read, its layers in Keras' order.

    Parameters
    ----------
    core : Interpreter
        The reader (its semantics' scopes, its refusals).
    args : list
        The call's positional arguments, as read.
    kwargs : dict
        The call's keyword arguments, as read.
    node : ast.AST
        The call (its line for refusals and rows).

    Returns
    -------
    KLayer
        The model (kind ``"functional"``), its layers those between the inputs and outputs.

    Raises
    ------
    Refused
        Either side missing, or not tensors derive has read.
    """
    inputs = args[0] if args else kwargs.get("inputs")
    outputs = args[1] if len(args) > 1 else kwargs.get("outputs")
    if inputs is None or outputs is None:
        raise core.refuse(node, "Model(inputs, outputs) needs both")
    for part, what in ((inputs, "inputs"), (outputs, "outputs")):
        for leaf in flat_tensors(part):
            if not isinstance(leaf, KTensor):
                why = leaf.reason() if isinstance(leaf, Unknown) else f"{source_of(node, 80)}"
                raise core.refuse(node, f"the {what} of Model are not tensors derive has read: {why}")
    model = KLayer("Functional", "", "functional", built=True, inputs=inputs, outputs=outputs)
    model.name = layer_name(core, kwargs.get("name"), "functional", node)
    model.line = getattr(node, "lineno", 0)
    found = functional_layers(flat_tensors(inputs), flat_tensors(outputs))
    model.layers = found  # InputLayers included, as Keras lists them
    model.output = outputs
    return model


def make_lambda(core: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> KLayer:
    """``layers.Lambda(function, output_shape=None)``: a layer without weights that calls ``function``.

    Parameters
    ----------
    core : Interpreter
        The reader (its semantics' scopes, its refusals).
    args : list
        The call's positional arguments, as read.
    kwargs : dict
        The call's keyword arguments, as read.
    node : ast.AST
        The call (its line for refusals and rows).

    Returns
    -------
    KLayer
        The layer (kind ``"lambda"``).
    """
    layer = KLayer("Lambda", layer_name(core, kwargs.get("name"), "lambda", node), "lambda")
    layer.attrs["<function>"] = args[0] if args else kwargs.get("function")
    layer.attrs["<output_shape>"] = kwargs.get("output_shape", args[1] if len(args) > 1 else None)
    layer.line = getattr(node, "lineno", 0)
    return layer


def make_variable(core: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> KWeight:
    """``keras.Variable(initializer, shape)``: a weight outside any layer, named under the current scopes.

    Parameters
    ----------
    core : Interpreter
        The reader (its semantics' scopes, its refusals).
    args : list
        The call's positional arguments, as read.
    kwargs : dict
        The call's keyword arguments, as read.
    node : ast.AST
        The call (its line for refusals and rows).

    Returns
    -------
    KWeight
        The weight, its path under the scopes open at the call.
    """
    initial = args[0] if args else kwargs.get("initializer")
    shape = kwargs.get("shape", args[1] if len(args) > 1 else None)
    if shape is None and isinstance(initial, KTensor):
        shape = initial.full
    holder = KLayer("Variable")
    made = make_weight(core, holder, [], {**kwargs, "shape": shape}, node)
    prefix = "/".join(n for n, _ in core.semantics.scopes)
    made.path = f"{prefix}/{made.name}" if prefix else made.name
    return made
