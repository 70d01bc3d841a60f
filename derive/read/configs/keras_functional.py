"""Keras Sequential and functional models from their config (``model.get_config()``, a ``.keras``
file's ``config.json``), read into the module tree.

A Sequential config lists its layers in order, the input shape in an ``InputLayer`` or
``build_input_shape``. A functional config lists the layers in creation order, each with its ``inbound_nodes``: the tensors it
was called on, named by ``keras_history`` = (layer name, call index, output index). Each layer
is made from its config as derive's layer (the same classes that read pasted code), built on
the shapes of its inputs — the first call fixes the weights, as in Keras — and its outputs are
recorded for the layers after it. Nothing is run; the config is data.
"""

from __future__ import annotations

from typing import Any

from ...tree import Module
from ..report import Report
from ..source import SourceError, clean
from .keras_config import config_call, node_module, strip_config
from .keras_nodes import Node, _start
from .keras_program import KerasProgram

__all__ = [
    "explain_keras_config",
    "explain_functional_config",
    "explain_sequential_config",
    "keras_report",
    "MAX_LAYERS",
]

#: Most layers read from one functional config.
MAX_LAYERS = 100_000


def _history(value: Any) -> tuple[str, int, int] | None:
    if isinstance(value, dict) and value.get("class_name") == "__keras_tensor__":
        history = (value.get("config") or {}).get("keras_history")
        if (
            isinstance(history, (list, tuple))
            and len(history) == 3
            and isinstance(history[0], str)
            and all(isinstance(i, int) and not isinstance(i, bool) for i in history[1:])
        ):
            return history[0], history[1], history[2]
    return None


def _shapes(value: Any, outputs: dict[tuple[str, int, int], Any], ops: set[str], where: str) -> Any:
    """The shape (or list of shapes) of a call's first argument, from the outputs recorded so far."""
    if isinstance(value, (list, tuple)):  # a list of tensors (JSON lists; tuples in a live config)
        return [_shapes(v, outputs, ops, where) for v in value]
    history = _history(value)
    if history is None:
        raise SourceError(f"{where}: an input that is not a Keras tensor reference")
    if history[0] in ops:  # an operation (keras.ops), not a layer: the shape the config records
        recorded = (value.get("config") or {}).get("shape")
        if not isinstance(recorded, (list, tuple)) or not recorded:
            raise SourceError(f"{where}: input from operation {clean(history[0], 60)} without a shape")
        return tuple(recorded[1:])
    if history not in outputs:
        raise SourceError(
            f"{where}: input {clean(history[0], 60)}[{history[1]}][{history[2]}] is not produced before it"
        )
    return outputs[history]


def explain_functional_config(config: dict) -> Report:
    """Every layer of a functional model with its derived count, closed form and output shape.

    Parameters
    ----------
    config : dict
        ``{"class_name": "Functional", "config": {"layers": [...], ...}}`` or the inner config;
        each layer ``{"class_name", "config", "name", "inbound_nodes"}``.

    Returns
    -------
    Report
        One row per layer of ``model.layers`` except the inputs; total = ``model.count_params()``.

    Raises
    ------
    SourceError
        Not a functional config; a layer derive does not know; an input used before it is made;
        a layer whose input shape its constructor refuses (Keras' wording).
    """
    inner = config.get("config", config) if isinstance(config, dict) else None
    layers = inner.get("layers") if isinstance(inner, dict) else None
    if not isinstance(layers, list) or not layers:
        raise SourceError("not a Keras functional config (no layers)")
    if len(layers) > MAX_LAYERS:
        raise SourceError(f"more than {MAX_LAYERS:,} layers")
    program = KerasProgram(partial=True)
    outputs: dict[tuple[str, int, int], Any] = {}
    ops: set[str] = set()
    nodes = []
    for entry in layers:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise SourceError("not a Keras functional config (a layer without a name)")
        name = entry["name"]
        where = f"layer {clean(name, 60)}"
        module = entry.get("module")
        if isinstance(module, str) and module.startswith(("keras.src.ops", "keras.ops")):
            ops.add(name)  # not in model.layers, no weights (Masking's NotEqual/Any, ...)
            continue
        call = config_call(entry)
        if call.name == "InputLayer":
            batch = call.kwargs.get("batch_shape") or call.kwargs.get("batch_input_shape")
            if not isinstance(batch, (list, tuple)) or not batch:
                raise SourceError(f"{where}: an InputLayer without batch_shape")
            outputs[(name, 0, 0)] = tuple(batch[1:])
            continue
        strip_config(call)
        node = _node(program, call, where)
        node.name = name
        inbound = entry.get("inbound_nodes")
        if not isinstance(inbound, (list, tuple)) or not inbound:
            raise SourceError(f"{where}: not called on anything (no inbound_nodes)")
        for index, called in enumerate(inbound):
            args = called.get("args") if isinstance(called, dict) else None
            if not isinstance(args, (list, tuple)) or not args:
                raise SourceError(f"{where}: a call without arguments")
            out = program.build(node, _shapes(args[0], outputs, ops, where))
            for k, shape in enumerate(out if isinstance(out, list) else [out]):
                outputs[(name, index, k)] = shape
        nodes.append(node)
    title = f"Keras functional model {clean(str(inner.get('name', '')), 60)}".rstrip() + " (config)"
    return keras_report(nodes, title, None, program.notes)


def _node(program: KerasProgram, call: Any, where: str) -> Node:
    """The layer of a config entry; a class derive does not know is a layer not counted."""
    try:
        return program.node(call)
    except SourceError as error:
        raise SourceError(f"{where}: {str(error).removeprefix('line 1: ')}") from None


def keras_report(nodes: list[Node], title: str, input_shape: Any, notes: list[str]) -> Report:
    """The report of built Keras layers: one tree node per layer (:func:`node_module`).

    Parameters
    ----------
    nodes : list of Node
        The layers in ``model.layers`` order, without the inputs.
    title : str
    input_shape : tuple or None
    notes : list of str

    Returns
    -------
    Report
    """
    tree = Module("", "Model", children=tuple(node_module(n) for n in nodes), sep="/")
    notes = [n.replace("line 1: ", "") for n in notes]
    return Report.from_module(tree, "keras", title, input_shape, notes)


def explain_sequential_config(config: dict) -> Report:
    """Every layer of a Sequential model with its derived count, closed form and output shape.

    Parameters
    ----------
    config : dict
        ``{"class_name": "Sequential", "config": {"layers": [...]}}`` or the inner config.

    Returns
    -------
    Report
        A layer derive does not know (a custom class) and the layers after it are rows not
        counted (the report is partial).

    Raises
    ------
    SourceError
        Not a Sequential config; no layers; a layer whose input its constructor refuses.
    """
    inner = config.get("config", config)
    if not isinstance(inner, dict) or not isinstance(inner.get("layers"), list):
        raise SourceError("not a Keras Sequential config (no layers)")
    program = KerasProgram(partial=True)
    nodes = []
    shape = None
    for index, layer in enumerate(inner["layers"]):
        call = config_call(layer)
        if call.name == "InputLayer":
            batch = call.kwargs.get("batch_shape") or call.kwargs.get("batch_input_shape")
            shape = tuple(batch[1:]) if batch else None
            continue
        strip_config(call)
        name = call.kwargs.get("name")
        node = _node(program, call, f"layer {clean(str(name if name else index), 60)}")
        node.name = name if isinstance(name, str) else node.name
        nodes.append(node)
    if not nodes:
        raise SourceError("the Sequential config has no layers")
    build = inner.get("build_input_shape")
    shape = shape or (tuple(build[1:]) if isinstance(build, (list, tuple)) else None)
    shape = _start(nodes, shape, None, program.notes)
    current: Any = shape
    for node in nodes:
        current = program.build(node, current)
        current = current[0] if isinstance(current, list) else current
    return keras_report(nodes, "Keras Sequential (config)", shape, program.notes)


def explain_keras_config(config: dict) -> Report:
    """A Keras Sequential or functional model from its config (``model.get_config()``, ``config.json``).

    Parameters
    ----------
    config : dict
        ``{"class_name": "Sequential" | "Functional", "config": {...}}`` or the inner config (a
        functional one is told by its layers' ``inbound_nodes``).

    Returns
    -------
    Report

    Raises
    ------
    SourceError
        Not a Sequential or functional config (a subclassed model's config holds no layers);
        see :func:`explain_sequential_config` and :func:`explain_functional_config`.
    """
    inner = config.get("config", config) if isinstance(config, dict) else None
    if not isinstance(config, dict) or not isinstance(inner, dict):
        raise SourceError("not a Keras model config")
    if config.get("class_name") in ("Functional", "Model") or (
        isinstance(inner.get("layers"), list)
        and any(isinstance(layer, dict) and layer.get("inbound_nodes") for layer in inner["layers"])
    ):
        return explain_functional_config(config)
    if not isinstance(inner.get("layers"), list) or config.get("class_name") not in (None, "Sequential"):
        raise SourceError("only Sequential and functional Keras configs are read (not subclassed models)")
    return explain_sequential_config(config)
