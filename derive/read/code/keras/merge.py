"""Keras objects on both ways of an unknown condition: when a layer, a tensor or Keras' state is the same.

Two layers agree when their kind, name, weights (names, shapes, trainable), built state and the
layers they hold do; their plain attributes may differ (they become unknown). Tensors agree when
their shapes and the layers that made them do; Keras' naming state when its counters do (a layer
made one way only has already made the layers differ). After the merge, the state of the way kept
is written back into the original objects (:meth:`KerasMerge.transplant`).
"""

from __future__ import annotations

from typing import Any

from ...._sympy import sympy
from .objects import KLayer, KTensor, KWeight, Session

__all__ = ["KerasMerge"]


def _same_shape(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(
        x == y or (x is not None and y is not None and sympy.simplify(sympy.sympify(x) - y) == 0) for x, y in zip(a, b)
    )


def _weights(module: Any) -> list[tuple[str, tuple[Any, ...], bool]]:
    from ....tree import named_parameters

    return [(n, tuple(p.shape), p.trainable) for n, p in named_parameters(module)]


def _made_by(tensor: KTensor) -> str:
    return "" if tensor.node is None else getattr(tensor.node.operation, "name", "")


class KerasMerge:
    """The merge rules, mixed into :class:`~.semantics.KerasSemantics`."""

    def has_modules(self, value: Any, seen: set[int]) -> bool:
        """Layers, weights, tensors (they hold the graph) and Keras' state count.

        Parameters
        ----------
        value : object
        seen : set of int

        Returns
        -------
        bool
        """
        return isinstance(value, (KLayer, KTensor, KWeight, Session))

    def merge(self, merger: Any, a: Any, b: Any) -> Any:
        """One object for ``a`` and ``b`` (the two ways' copies), or None when they differ.

        Parameters
        ----------
        merger : Merger
        a, b : object

        Returns
        -------
        object or None
        """
        if isinstance(a, Session) and isinstance(b, Session):
            if a.uids != b.uids or len(a.applied) != len(b.applied):
                return None
            a.applied[:] = [merger.value(x, y, "layer") for x, y in zip(a.applied, b.applied)]
            return a
        if isinstance(a, KTensor) and isinstance(b, KTensor):
            same = _same_shape(a.full, b.full) and _made_by(a) == _made_by(b) and a.index == b.index
            return a if same else None
        if isinstance(a, KWeight) and isinstance(b, KWeight):
            same = (a.name, a.trainable, a.path) == (b.name, b.trainable, b.path) and _same_shape(a.shape, b.shape)
            return a if same else None
        if not (isinstance(a, KLayer) and isinstance(b, KLayer)):
            return None
        if (a.type, a.name, a.kind, a.built, a.path, a.counted, a.cls) != (
            b.type,
            b.name,
            b.kind,
            b.built,
            b.path,
            b.counted,
            b.cls,
        ):
            return None
        if a.module is not b.module and (
            a.module is None or b.module is None or _weights(a.module) != _weights(b.module)
        ):
            return None
        for table in ("weights", "tracked", "layers"):
            mine, theirs = getattr(a, table), getattr(b, table)
            if len(mine) != len(theirs):
                return None
            mine[:] = [merger.value(x, y, f"{a.name}.{table}") for x, y in zip(mine, theirs)]
        merger.names(a.attrs, b.attrs, f"{a.name}.")
        return a

    def transplant(self, target: Any, source: Any, back: Any) -> None:
        """Write a copied layer, tensor, weight or state back into the original object.

        Parameters
        ----------
        target : object
            The original.
        source : object
            Its copy, as one way left it.
        back : callable
            Maps a copied object to its original.
        """
        if isinstance(target, Session):
            target.uids = dict(source.uids)
            target.applied = [back(v) for v in source.applied]
        elif isinstance(target, (KTensor, KWeight)):
            for name in target.__dataclass_fields__:
                setattr(target, name, getattr(source, name))
        elif isinstance(target, KLayer):
            for name in target.__dataclass_fields__:
                value = getattr(source, name)
                if name in ("attrs", "tracked", "weights", "layers", "inputs", "outputs", "output"):
                    value = back(value)
                setattr(target, name, value)
