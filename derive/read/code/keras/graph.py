"""The layers of a functional model, in Keras' order: the graph from its outputs back to its inputs.

A port of ``map_graph`` (``keras/src/ops/function.py``): the nodes reached from the outputs
depth-first, each operation's depth the longest path to an output, the operations ordered by
depth (deepest first) and, within a depth, by the order the walk first met them. ``model.layers``
are the layers among those operations (``keras/src/models/functional.py``), the ``InputLayer`` s
included (the reader leaves them out of the rows, as the tables show ``model.layers`` without them).
"""

from __future__ import annotations

from typing import Any

from .objects import KLayer, KNode, KTensor

__all__ = ["functional_layers", "flat_tensors"]


def flat_tensors(value: Any) -> list[Any]:
    """The leaves of nested lists, tuples and dicts, in order.

    Parameters
    ----------
    value : object

    Returns
    -------
    list
    """
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in flat_tensors(item)]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in flat_tensors(item)]
    return [value]


def functional_layers(inputs: list[KTensor], outputs: list[KTensor]) -> list[KLayer]:
    """The layers between ``inputs`` and ``outputs`` in ``model.layers`` order (InputLayers included).

    Parameters
    ----------
    inputs, outputs : list of KTensor

    Returns
    -------
    list of KLayer
    """
    ordered: list[KNode] = []
    indices: dict[int, int] = {}
    finished: set[int] = set()
    operations: dict[int, Any] = {}
    input_ids = {id(t) for t in inputs}

    def walk(tensor: KTensor) -> None:
        node = tensor.node
        if node is None or id(node) in finished:
            return
        if not node.is_input and id(tensor) in input_ids:
            finished.add(id(node))
            return
        operation = node.operation
        operations[id(operation)] = operation
        indices.setdefault(id(operation), len(indices))
        finished.add(id(node))  # a graph of the code has no cycle: every node's inputs were made before it
        if not node.is_input:
            for parent in node.inputs:
                walk(parent)
        ordered.append(node)

    for output in outputs:
        walk(output)
    node_depth: dict[int, int] = {}
    operation_depth: dict[int, int] = {}
    in_graph = {id(n) for n in ordered}
    for node in reversed(ordered):
        depth = max(node_depth.setdefault(id(node), 0), operation_depth.get(id(node.operation), 0))
        operation_depth[id(node.operation)] = node_depth[id(node)] = depth
        for parent in node.inputs:
            made = parent.node
            if made is not None and id(made) in in_graph:
                node_depth[id(made)] = max(depth + 1, node_depth.get(id(made), 0))
    for tensor in inputs:
        made = tensor.node
        if made is not None and made.is_input and id(made.operation) not in operation_depth:
            operations[id(made.operation)] = made.operation
            operation_depth[id(made.operation)] = 0
            indices[id(made.operation)] = -1
    order = sorted(operation_depth, key=lambda key: (-operation_depth[key], indices[key]))
    return [operations[key] for key in order if isinstance(operations[key], KLayer)]
