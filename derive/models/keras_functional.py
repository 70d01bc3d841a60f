"""A Keras functional model from its config (``model.get_config()``, a ``.keras`` file's ``config.json``).

The config lists the layers in creation order, each with its ``inbound_nodes``: the tensors it
was called on, named by ``keras_history`` = (layer name, call index, output index). Each layer
is made from its config as derive's layer (the same classes that read pasted code), built on
the shapes of its inputs — the first call fixes the weights, as in Keras — and its outputs are
recorded for the layers after it. Nothing is run; the config is data.
"""

from __future__ import annotations

from typing import Any

from .keras_code import KerasProgram, _rows
from .report import Report
from .source import SourceError, clean

__all__ = ["explain_functional_config", "MAX_LAYERS"]

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
    from .checkpoints import keras_config_calls
    from .objects import _strip

    inner = config.get("config", config) if isinstance(config, dict) else None
    layers = inner.get("layers") if isinstance(inner, dict) else None
    if not isinstance(layers, list) or not layers:
        raise SourceError("not a Keras functional config (no layers)")
    if len(layers) > MAX_LAYERS:
        raise SourceError(f"more than {MAX_LAYERS:,} layers")
    program = KerasProgram()
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
        call = keras_config_calls(entry)
        if call.name == "InputLayer":
            batch = call.kwargs.get("batch_shape") or call.kwargs.get("batch_input_shape")
            if not isinstance(batch, (list, tuple)) or not batch:
                raise SourceError(f"{where}: an InputLayer without batch_shape")
            outputs[(name, 0, 0)] = tuple(batch[1:])
            continue
        _strip(call)
        node = program.node(call)
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
    return Report("keras", _rows(nodes, False), title, None, program.notes)
