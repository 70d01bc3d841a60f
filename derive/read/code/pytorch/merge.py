"""torch objects on both ways of an unknown condition: when a module, a parameter or a tensor is the same.

Two module objects agree when their parameters (names, shapes, trainable), children and types do;
their plain attributes may differ (they become unknown); buffers that differ are left out of the
listing with a note (buffers are not counted). Tensors agree when their shapes do. After the merge,
the state of the way kept is written back into the original objects (:meth:`TorchMerge.transplant`).
"""

from __future__ import annotations

from typing import Any

from ...._sympy import sympy
from .objects import ModObj, ParamObj, TensorVal

__all__ = ["TorchMerge"]


class TorchMerge:
    """The merge rules, mixed into :class:`~.semantics.TorchSemantics`."""

    def has_modules(self, value: Any, seen: set[int]) -> bool:
        """Modules and parameters count; tensors do not.

        Parameters
        ----------
        value : object
        seen : set of int
            ``id()`` of the values already visited (unused: a torch object is decided by its kind).

        Returns
        -------
        bool
        """
        return isinstance(value, ModObj) or (isinstance(value, ParamObj) and not value.buffer)

    def merge(self, merger: Any, a: Any, b: Any) -> Any:
        """Two module objects agree when their tensors and children do (plain attributes may differ).

        Parameters
        ----------
        merger : Merger
            The merge under way (:class:`~derive.read.code.python.flow.Merger`): children and attributes are merged by it.
        a, b : object
            The object after the first and after the second way.

        Returns
        -------
        object or None
            ``a``, merged; None when they differ.

        Raises
        ------
        Refused
            Children whose modules or parameters differ (through ``merger``).
        """
        if isinstance(a, TensorVal) or isinstance(b, TensorVal):
            return a if a == b else None
        if isinstance(a, ParamObj) and isinstance(b, ParamObj):
            same = a.buffer == b.buffer and a.trainable == b.trainable and _same_shape(a.shape, b.shape)
            return a if same else None
        if not (isinstance(a, ModObj) and isinstance(b, ModObj)) or (a.type, a.counted) != (b.type, b.counted):
            return None
        if list(a.params) != list(b.params) or list(a.children) != list(b.children):
            return None
        for table in ("params", "children"):
            mine, theirs = getattr(a, table), getattr(b, table)
            for key in mine:
                if mine[key] is None or theirs[key] is None:
                    if mine[key] is not theirs[key]:
                        return None
                    continue
                mine[key] = merger.value(mine[key], theirs[key], f"{a.type}.{key}")
        for key in list(a.buffers):
            if key not in b.buffers or not _same_shape(
                getattr(a.buffers[key], "shape", ()), getattr(b.buffers[key], "shape", ())
            ):
                del a.buffers[key]
                merger.core.note(
                    f"line {getattr(merger.node, 'lineno', 0)}: buffer {key} of {a.type} depends on {merger.why}: not listed"
                )
        merger.names(a.attrs, b.attrs, f"{a.type}.")
        return a

    def transplant(self, target: Any, source: Any, back: Any) -> None:
        """Write a copied module, parameter or tensor back into the original object.

        Parameters
        ----------
        target : object
            The original object (its identity is kept).
        source : object
            The copy the way kept ran on.
        back : callable
            Copy -> original, for each value ``source`` refers to.
        """
        if isinstance(target, ParamObj):
            target.shape, target.trainable, target.buffer = source.shape, source.trainable, source.buffer
            return
        if not isinstance(target, ModObj):
            return
        for name in ("type", "cls", "origin", "frozen", "modified", "counted", "note", "container"):
            setattr(target, name, getattr(source, name))
        for name in ("params", "buffers", "children", "attrs"):
            items = [(k, back(v)) for k, v in getattr(source, name).items()]
            table = getattr(target, name)
            table.clear()
            table.update(items)


def _same_shape(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return len(a) == len(b) and all(x == y or sympy.simplify(sympy.sympify(x) - y) == 0 for x, y in zip(a, b))
