"""Whole Keras models pasted as code: ``Sequential([...])``, ``model.add(...)``, the functional API.

The code is read with :mod:`ast` (:mod:`derive.models.source`), never run. The input shape is the
one the code gives — ``Input(shape=...)``, ``input_shape=``, ``batch_input_shape=``,
``input_dim=``, ``input_length=`` (Embedding), ``model.build(...)`` — or ``input_dim`` given
here (features per step), which must not contradict the code.

>>> report = explain_keras("Sequential([Embedding(10000, 128), LSTM(64), Dense(1)])")
>>> [(r.name, r.params) for r in report.rows], report.total
([('embedding', 1280000), ('lstm', 49408), ('dense', 65)], 1329473)
>>> [t["name"] for t in report.tensors][:2]
['sequential/embedding/embeddings', 'sequential/lstm/lstm_cell/kernel']

The reading is split: :mod:`derive.models.keras_program` (statements, layers, the functional
graph, builds) and :mod:`derive.models.keras_nodes` (layers, tensors, input shapes, rows).
"""

from __future__ import annotations

from typing import Any

from ..frameworks.keras.core import InputLayer
from .keras_nodes import Node, Tensor, _declared, _reachable, _rows, _start, _tree
from .keras_program import SUPPORTED, KerasProgram
from .report import Report
from .source import SourceError, clean, parse_module

__all__ = ["explain_keras", "SUPPORTED", "KerasProgram", "Node", "Tensor"]


def explain_keras(text: str, input_dim: Any = None, partial: bool = False) -> Report:
    """A Keras model's layers, counts, closed forms and output shapes, from its code.

    Parameters
    ----------
    text : str
        Python source: ``Sequential([...])``, ``model.add(...)`` lines, or the functional API
        ending in ``Model(inputs, outputs)``; one layer constructor is a one-layer model.
    input_dim : int or sympy.Expr, optional
        Features per time step of the model's input, when the code does not give its shape.
        Refused when it contradicts the code.
    partial : bool
        Count the known layers and mark unknown ones instead of refusing.

    Returns
    -------
    Report
        One row per layer (as ``model.layers``; no InputLayer), total = ``model.count_params()``;
        its module tree (:attr:`Report.module`) gives the tensors under Keras' paths (a
        Sequential's prefixed by its name, ``sequential/lstm/lstm_cell/kernel``).

    Raises
    ------
    SourceError
        Unreadable code, an unknown layer (with its line and the supported names), an input shape
        that does not fit (Keras' wording), an unknown or contradicted input size.

    Examples
    --------
    >>> explain_keras("LSTM(64, input_shape=(100, 8))").total
    18688
    """
    tree = parse_module(text)
    program = KerasProgram(partial)
    program.run(tree.body)
    title, name, kind = "Keras model", "", "Functional"
    if program.models:
        named = [m for m in program.models if m[0] == "model"]
        _, inputs, outputs = (named or program.models)[0]
        reach = _reachable(outputs)
        nodes = [n for n in dict.fromkeys(program.loose) if id(n) in reach]
        if input_dim is not None:
            raise SourceError("input_dim does not apply to a functional model: its Input(shape=...) gives it")
        shape = None
        title = "Keras functional model"
    elif program.sequentials:
        named_sequentials = [s for s in program.sequentials if s.get("var") == "model"]
        model = (named_sequentials or program.sequentials)[-1]
        nodes = list(model["nodes"])
        if not nodes:
            raise SourceError("the Sequential model has no layers")
        shape = None
        if isinstance(nodes[0].layer, InputLayer):
            shape = nodes[0].layer.shape
            nodes = nodes[1:]
        if not nodes:
            raise SourceError("the Sequential model has no layers")
        name, kind = model.get("name") or "", "Sequential"
        shape = shape or _declared(nodes[0]) or model.get("build")
        shape = _start(nodes, shape, input_dim, program.notes)
        current: Any = shape
        for node in nodes:
            current = program.build(node, current)
            if isinstance(current, list):
                current = current[0]
        title = f"Keras Sequential, input {(None, *shape)}" if shape[:1] != (Ellipsis,) else "Keras Sequential"
    elif program.loose:
        nodes = list(dict.fromkeys(program.loose))
        shape = None
    else:
        raise SourceError("no Keras model found: expected Sequential([...]), model.add(...) or Model(inputs, outputs)")
    return Report("keras", _rows(nodes, partial), clean(title), shape, program.notes, module=_tree(nodes, name, kind))
