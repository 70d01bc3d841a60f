"""Keras layer configs (``layer.get_config()``, a ``.keras`` file's ``config.json``) as calls, and
built layers as module-tree nodes.

:func:`config_call` turns ``{"class_name": "LSTM", "config": {...}}`` into the :class:`Call` that
makes it (the same calls the code reader makes from source), :func:`strip_config` drops the config
entries that are not constructor arguments, and :func:`node_module` gives a built layer
(:class:`derive.read.code.keras.reader.Node`) as a :class:`derive.tree.Module` named as Keras names its
weights (``lstm/lstm_cell/kernel``). The config readers (:mod:`derive.read.configs.keras_functional`) and
the live-object reader (:mod:`derive.read.live.keras`) share them; nothing here reads a file.
"""

from __future__ import annotations

import inspect
from typing import Any

from ...tree import Module
from ..source import Call, SourceError

__all__ = ["config_call", "strip_config", "node_module", "CONFIG_ONLY"]
#: Config entries that are not constructor arguments of derive's layer classes.
CONFIG_ONLY = frozenset({"dtype", "trainable", "seed", "time_major", "implementation", "zero_output_for_mask"})


def config_call(config: Any, depth: int = 0) -> Call:
    """A Keras layer config (``{"class_name", "config"}``) as the :class:`Call` that makes it.

    Parameters
    ----------
    config : dict
    depth : int
        How deep in wrapped layers (``Bidirectional(LSTM)``) this config is.

    Returns
    -------
    Call

    Raises
    ------
    SourceError
        Not a layer config, or nested more than 20 deep.
    """
    if depth > 20 or not isinstance(config, dict) or not isinstance(config.get("class_name"), str):
        raise SourceError("not a Keras layer config")
    name = config["class_name"]
    inner = config.get("config") or {}
    kwargs: dict[str, Any] = {}
    for key, value in inner.items():
        if isinstance(value, dict) and "class_name" in value and key in ("layer", "backward_layer"):
            kwargs[key] = config_call(value, depth + 1)
        elif isinstance(value, list) and key != "layers":
            kwargs[key] = tuple(value)
        elif key != "layers":
            kwargs[key] = value
    if name == "Sequential":
        return Call(name, name, [[config_call(layer, depth + 1) for layer in inner.get("layers", [])]], {})
    return Call(name, name, [], kwargs)


def strip_config(call: Call) -> None:
    """Drop the config entries of ``call`` (in place) that its derive class does not take.

    Parameters
    ----------
    call : Call
    """
    from ...frameworks import keras as dk
    from ...frameworks.keras.constructors import KERAS_LAYERS

    target = KERAS_LAYERS.get(call.name) or getattr(dk, call.name, None)
    if target is None:
        return
    params = set(inspect.signature(target.__init__).parameters)
    allowed = params | set(getattr(target, "ALLOWED", ())) | set(getattr(target, "ARGUMENTS", ())) | {"name"}
    for key in list(call.kwargs):
        if key not in allowed or key in CONFIG_ONLY:
            del call.kwargs[key]
    for value in list(call.kwargs.values()) + list(call.args):
        if isinstance(value, Call):
            strip_config(value)
    if call.name in ("Bidirectional", "TimeDistributed") and isinstance(call.kwargs.get("layer"), Call):
        call.args = [call.kwargs.pop("layer")]


def node_module(node: Any) -> Module:
    """A built layer of a Keras program as a tree node: its weights below its name, its closed form.

    Parameters
    ----------
    node : derive.read.configs.keras_nodes.Node

    Returns
    -------
    derive.tree.Module
        ``sep="/"``; not counted (:attr:`derive.tree.Module.counted` False) when the layer could
        not be built (an unknown layer, or one after it).
    """
    if node.module is None:
        return Module(node.name, node.type, sep="/", counted=False, note=node.error or "not built: not counted")
    return node.module.replace(name=node.name, type=node.type, note=node.error or node.module.note, row=True)
